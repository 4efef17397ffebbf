// Cards drawn in SVG: a card is "rank then suit" ("7D", "OE", "BJ"); the deck
// pattern (view.options.pattern) says how its suits look and are named.

const NS = "http://www.w3.org/2000/svg";

// Suit pictures: [shape, colour]. Shapes are drawn by suitShape below.
const FRENCH = { S: ["spade", "#111"], H: ["heart", "#c8102e"], D: ["diamond", "#c8102e"], C: ["club", "#111"] };
const ITALIAN_ON_FRENCH = { S: ["sword", "#1f4fa0"], H: ["cup", "#b3261e"], D: ["coin", "#b8860b"], C: ["baton", "#2e6b1f"] };
const BRESCIANE = { S: ["sword", "#1f4fa0"], C: ["cup", "#b3261e"], D: ["coin", "#b8860b"], B: ["baton", "#2e6b1f"] };
const GERMAN = { E: ["acorn", "#7a4a12"], G: ["leaf", "#2e7d32"], H: ["heart", "#c8102e"], S: ["bell", "#d98c00"] };

export const PATTERN_SUITS = {
  french: FRENCH,
  napoletane: ITALIAN_ON_FRENCH,
  bresciane: BRESCIANE,
  bavarian: GERMAN,
  double_german: GERMAN,
  south_tyrolean: GERMAN,
  salzburg: GERMAN,
};

// Suit order in a sorted hand, per card family.
const SUIT_ORDER = { french: "SHCD", italian: "DCSB", german: "EGHS" };
const RANK_ORDER = {
  french: "23456789TJQKA",
  bresciane: "A23456789TFCR",
  german: "ATKOU987", // high to low, as the trumps and plain suits of Schafkopf rank
};
// Dou Dizhu: suits never matter; players sort by rank, 3 lowest, then the 2, then the jokers.
const DOUDIZHU_RANKS = "3456789TJQKA2";

export function family(pattern) {
  if (pattern === "bresciane") return "bresciane";
  if (PATTERN_SUITS[pattern] === GERMAN) return "german";
  return "french";
}

function suitsOf(pattern) {
  return PATTERN_SUITS[pattern] || FRENCH;
}

/** Schafkopf: the trumps of a contract (court ranks, suit); null before one. */
function schafkopfTrumps(contract) {
  if (!contract || !contract.kind) return null;
  if (contract.kind.startsWith("wenz")) return ["U", ""];
  if (contract.kind.startsWith("solo")) return ["OU", contract.suit || "H"];
  return ["OU", "H"];
}

/** The name of a suit in a pattern, from the strings table. */
export function suitName(suit, strings, pattern) {
  const suits = strings.suit_names[pattern] || strings.suit_names[family(pattern)] || {};
  return suits[suit] || suit;
}

/** The patterns that can draw the cards of ``pattern``'s family. */
export function patternsLike(pattern) {
  return Object.keys(PATTERN_SUITS).filter((p) => family(p) === family(pattern));
}

/** Sort a hand by suit, then by rank (jokers last; Dou Dizhu by rank alone); in Schafkopf trumps come first,
 * Obers then Unters (Eichel, Gras, Herz, Schellen) then the trump suit, once the
 * contract is known. */
export function sortHand(cards, pattern, game = "", contract = null) {
  const trumps = game === "schafkopf" ? schafkopfTrumps(contract) : null;
  if (trumps) {
    const [courts, suit] = trumps;
    const isTrump = (c) => courts.includes(c[0]) || c[1] === suit;
    const trumpKey = (c) => (courts.includes(c[0]) ? courts.indexOf(c[0]) * 10 + "EGHS".indexOf(c[1]) : 100 + "ATKOU987".indexOf(c[0]));
    const rest = sortHand(cards.filter((c) => !isTrump(c)), pattern);
    const top = cards.filter(isTrump).sort((a, b) => trumpKey(a) - trumpKey(b));
    return [...top, ...rest.sort((a, b) => "EGHS".indexOf(a[1]) - "EGHS".indexOf(b[1]) || "ATKOU987".indexOf(a[0]) - "ATKOU987".indexOf(b[0]))];
  }
  if (game === "doudizhu") {
    const key = (c) => (c[1] === "J" && (c[0] === "B" || c[0] === "R") ? 100 + (c[0] === "R" ? 1 : 0) : DOUDIZHU_RANKS.indexOf(c[0]) * 4 + "SHCD".indexOf(c[1]));
    return [...cards].sort((a, b) => key(a) - key(b));
  }
  const fam = family(pattern);
  const suits = fam === "german" ? SUIT_ORDER.german : fam === "bresciane" ? "DCSB" : pattern === "napoletane" ? "DHSC" : SUIT_ORDER.french;
  const ranks = RANK_ORDER[fam] || RANK_ORDER.french;
  const key = (c) => {
    if (c[1] === "J" && (c[0] === "B" || c[0] === "R")) return 1000 + (c[0] === "R" ? 1 : 0);
    const s = suits.indexOf(c[1]);
    return (s < 0 ? 9 : s) * 100 + ranks.indexOf(c[0]);
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function suitShape(shape, colour, parent) {
  const g = el("g", { fill: colour, stroke: colour }, parent);
  switch (shape) {
    case "heart":
      el("path", { d: "M12 21 C4 14 2 10 5 6 C8 3 11 5 12 7 C13 5 16 3 19 6 C22 10 20 14 12 21Z" }, g);
      break;
    case "diamond":
      el("path", { d: "M12 2 L20 12 L12 22 L4 12Z" }, g);
      break;
    case "spade":
      el("path", { d: "M12 2 C6 9 3 12 5 15 C7 18 10 17 11 15 L10 21 L14 21 L13 15 C14 17 17 18 19 15 C21 12 18 9 12 2Z" }, g);
      break;
    case "club":
      el("circle", { cx: 12, cy: 7, r: 4 }, g);
      el("circle", { cx: 7, cy: 13, r: 4 }, g);
      el("circle", { cx: 17, cy: 13, r: 4 }, g);
      el("path", { d: "M11 12 L10 21 L14 21 L13 12Z" }, g);
      break;
    case "coin":
      el("circle", { cx: 12, cy: 12, r: 9, fill: "#f2c94c", "stroke-width": 2 }, g);
      el("circle", { cx: 12, cy: 12, r: 4, fill: "none", "stroke-width": 1.5 }, g);
      break;
    case "cup":
      el("path", { d: "M5 4 L19 4 C19 10 16 13 13 13 L13 18 L17 20 L7 20 L11 18 L11 13 C8 13 5 10 5 4Z" }, g);
      break;
    case "sword":
      el("path", { d: "M12 1 L14 4 L14 16 L10 16 L10 4Z" }, g);
      el("rect", { x: 6, y: 16, width: 12, height: 2 }, g);
      el("rect", { x: 11, y: 18, width: 2, height: 5 }, g);
      break;
    case "baton":
      el("path", { d: "M9 2 C13 2 15 4 14 8 L13 22 L10 22 L9 8 C7 6 7 3 9 2Z" }, g);
      el("circle", { cx: 10, cy: 10, r: 1.2, fill: "#fff" }, g);
      break;
    case "acorn":
      el("ellipse", { cx: 12, cy: 15, rx: 5, ry: 6 }, g);
      el("path", { d: "M6 11 C6 6 18 6 18 11Z", fill: "#4a2c08" }, g);
      el("rect", { x: 11, y: 2, width: 2, height: 5 }, g);
      break;
    case "leaf":
      el("path", { d: "M12 2 C20 8 20 16 12 22 C4 16 4 8 12 2Z" }, g);
      el("path", { d: "M12 4 L12 21", stroke: "#fff", "stroke-width": 1 }, g);
      break;
    case "bell":
      el("circle", { cx: 12, cy: 12, r: 8 }, g);
      el("path", { d: "M5 12 L19 12", stroke: "#7a4a12", "stroke-width": 1.5 }, g);
      el("circle", { cx: 12, cy: 16, r: 1.5, fill: "#7a4a12" }, g);
      break;
    default:
      el("circle", { cx: 12, cy: 12, r: 6 }, g);
  }
  return g;
}

/** The small SVG picture of a suit. */
export function suitIcon(suit, pattern) {
  const [shape, colour] = suitsOf(pattern)[suit] || ["joker", "#6a1b9a"];
  const svg = el("svg", { viewBox: "0 0 24 24", class: "suit", "aria-hidden": "true", "data-shape": shape });
  suitShape(shape, colour, svg);
  return svg;
}

/** The rank shown on a card face (a 10 shows as "10"). */
export function rankLabel(rank, strings, pattern) {
  const fam = family(pattern);
  const table = (strings.rank_short && (strings.rank_short[pattern] || strings.rank_short[fam])) || {};
  return table[rank] || (rank === "T" ? "10" : rank);
}

/** The full name of a card in this pattern: the language's ``card_format`` filled
 * with the pattern's rank and suit names (its ``jokers`` for the two jokers). */
export function cardName(code, strings, pattern) {
  const [rank, suit] = [code[0], code[1]];
  if (suit === "J" && (rank === "B" || rank === "R")) return strings.jokers[rank];
  const fam = family(pattern);
  const ranks = (strings.rank_names[pattern] || strings.rank_names[fam] || {});
  const suits = (strings.suit_names[pattern] || strings.suit_names[fam] || {});
  return strings.card_format.replace("{rank}", ranks[rank] || rank).replace("{suit}", suits[suit] || suit);
}

/** A card element: a button when it can be clicked. */
export function cardElement(code, strings, pattern, { clickable = false, small = false } = {}) {
  const node = document.createElement(clickable ? "button" : "div");
  node.className = "card" + (small ? " small" : "");
  node.dataset.card = code;
  const name = cardName(code, strings, pattern);
  node.title = name;
  node.setAttribute("aria-label", name);
  const [rank, suit] = [code[0], code[1]];
  const colour = (suitsOf(pattern)[suit] || ["", "#6a1b9a"])[1];
  node.classList.add("suit-" + suit);
  const label = document.createElement("span");
  label.className = "rank";
  label.textContent = suit === "J" ? (rank === "R" ? "★" : "☆") : rankLabel(rank, strings, pattern);
  label.style.color = colour; // CSSOM, allowed by the page's CSP
  node.appendChild(label);
  node.appendChild(suitIcon(suit, pattern));
  return node;
}
