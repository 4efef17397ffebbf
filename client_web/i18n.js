// The page's languages: which one to show, its strings laid over English, the
// switch in the header, and the texts built from the strings tables (error
// messages by code, game terms by the engine's identifiers). docs/languages.md.

import { cardName, rankLabel, suitName } from "/static/cards.js";

/** The languages the page speaks, each labelled with its own name. */
export const LANGUAGES = {
  en: "English",
  it: "Italiano",
  de: "Deutsch",
  hu: "Magyar",
  tr: "Türkçe",
  zh: "中文",
};

const STORE_KEY = "cardavia.lang";
const loaded = new Map(); // language code -> its parsed strings table

/** The language to show: the stored choice, else the first of the browser's
 * languages whose prefix the page speaks ("de-AT" is "de"), else English. */
export function chooseLanguage(store, preferred) {
  const stored = store.getItem(STORE_KEY);
  if (stored && Object.hasOwn(LANGUAGES, stored)) return stored;
  for (const tag of preferred || []) {
    const prefix = String(tag).toLowerCase().split("-")[0];
    if (Object.hasOwn(LANGUAGES, prefix)) return prefix;
  }
  return "en";
}

/** Remember the player's choice for the next visit. */
export function rememberLanguage(store, lang) {
  store.setItem(STORE_KEY, lang);
}

/** ``over`` laid on ``base``: tables merged key by key, other values replaced;
 * neither argument changes. */
export function deepMerge(base, over) {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    const bothTables = [value, below].every((v) => v !== null && typeof v === "object" && !Array.isArray(v));
    out[key] = bothTables ? deepMerge(below, value) : value;
  }
  return out;
}

async function fetchTable(lang) {
  if (!loaded.has(lang)) {
    const reply = await fetch(`/static/i18n/${lang}.json`);
    if (!reply.ok) throw new Error(`strings for ${lang}: HTTP ${reply.status}`);
    loaded.set(lang, await reply.json());
  }
  return loaded.get(lang);
}

/** The strings of ``lang``: English with that language laid over it, so a string
 * the language lacks is shown in English (and all of English if its file fails). */
export async function loadStrings(lang) {
  const english = await fetchTable("en");
  if (lang === "en" || !Object.hasOwn(LANGUAGES, lang)) return english;
  try {
    return deepMerge(english, await fetchTable(lang));
  } catch (err) {
    console.warn(err);
    return english;
  }
}

/** The header's language switch; ``onChange(code)`` when the player picks one. */
export function languageSwitch(current, label, onChange) {
  const select = document.createElement("select");
  select.id = "lang";
  select.setAttribute("aria-label", label);
  select.style.marginLeft = "auto"; // CSSOM, allowed by the page's CSP
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = current;
  select.addEventListener("change", () => onChange(select.value));
  return select;
}

function lookup(strings, key) {
  const found = key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), strings);
  return typeof found === "string" ? found : undefined;
}

/** A server error for the player. A refused move that says why (the ``reasons``
 * feature, docs/protocol.md) in the page's words for ``reasons.<key>``, its cards and
 * suits named as ``game``'s table in ``pattern`` names them, else (a reason this page
 * has no sentence for) the server's own message; any other error by its code, else
 * the server's message. */
export function errorMessage(strings, error, game = "", pattern = "french") {
  if (error.reason && typeof error.reason === "object") {
    return reasonText(strings, game, pattern, error.reason) ?? serverMessage(strings, error);
  }
  const known = lookup(strings, "errors." + error.code);
  if (known !== undefined) return known;
  return serverMessage(strings, error);
}

function serverMessage(strings, error) {
  const format = lookup(strings, "error") || "{message}";
  return format.replaceAll("{message}", String(error.message || error.code || ""));
}

/** Why the rules refused a move (``{key, params}``, engine/reasons.py) as the sentence
 * ``reasons.<key>`` filled with its parameters in words; undefined when the page has
 * no sentence for the key or a placeholder stays unfilled (a newer server). */
export function reasonText(strings, game, pattern, reason) {
  const sentence = lookup(strings, "reasons." + reason.key);
  if (sentence === undefined) return undefined;
  const args = reasonArgs(strings, game, pattern, reason.params || {});
  const text = sentence.replace(/\{([a-z_]+)\}/g, (whole, name) => (Object.hasOwn(args, name) ? args[name] : whole));
  return /\{[a-z_]+\}/.test(text) ? undefined : text;
}

/** A reason's parameters in words, each by the kind its name tells (engine/reasons.py):
 * cards by the names the page gives them (Dou Dizhu, whose suits never matter, by the
 * rank its faces show), a suit by the pattern's name and its ace as the card (``ace``,
 * the called ace's name on this deck), combinations and contracts by their terms. */
function reasonArgs(strings, game, pattern, params) {
  const card = (code) => {
    const c = String(code);
    if (game !== "doudizhu" || c[1] === "J") return cardName(c, strings, pattern);
    return rankLabel(c[0], strings, pattern);
  };
  const cards = (codes) => codes.map(card).join(game === "doudizhu" ? " " : ", ");
  const args = {};
  for (const [name, value] of Object.entries(params)) {
    if ((name === "card" || name === "called_ace") && typeof value === "string") args[name] = card(value);
    else if ((name === "cards" || name === "last_cards") && Array.isArray(value)) args[name] = cards(value);
    else if (name === "choices" && Array.isArray(value)) {
      const or = lookup(strings, "or") || " or ";
      args[name] = value.map((group) => String(group).split(" ").map(card).join(" + ")).join(or);
    } else if (name === "suit" && typeof value === "string") {
      args.suit = suitName(value, strings, pattern);
      args.ace = cardName("A" + value, strings, pattern);
    } else if (name === "combo" || name === "last_combo") args[name] = term(strings, "doudizhu", value);
    else if (name === "contract" || name === "above") args[name] = term(strings, "schafkopf", value);
    else args[name] = String(value);
  }
  return args;
}

/** A game term by the engine's identifier (``terms.<game>.<id>``; ``foo_award`` is
 * the term ``foo``), else the identifier with spaces. */
export function term(strings, game, id) {
  const name = String(id);
  return lookup(strings, `terms.${game}.${name}`) ?? lookup(strings, `terms.${game}.${name.replace(/_award$/, "")}`) ?? name.replaceAll("_", " ");
}

/** A contract or a bid: its term and its suit (the called ace or the trumps), or
 * the bid value; a pass when it names nothing. */
export function bidText(strings, game, pattern, bid) {
  if (bid.contract !== undefined || bid.kind !== undefined) {
    const kind = bid.contract !== undefined ? bid.contract : bid.kind;
    if (!kind) return lookup(strings, "action.pass") || "pass";
    return term(strings, game, kind) + (bid.suit ? " " + suitName(bid.suit, strings, pattern) : "");
  }
  if (bid.bid !== undefined || bid.value !== undefined) {
    const value = bid.bid !== undefined ? bid.bid : bid.value;
    if (!value) return lookup(strings, "action.pass") || "pass";
    return (lookup(strings, "action.bid") || "{value}").replaceAll("{value}", String(value));
  }
  return "";
}

/** What one event of a move says, in the game's terms: a bid, a contract, a
 * Dou Dizhu combination, the bonuses of a capture. */
export function eventText(strings, game, pattern, event) {
  const data = event.data || {};
  const kind = event.kind;
  const base = lookup(strings, `events.${kind}`) ?? term(strings, game, kind);
  if (kind === "bid") return bidText(strings, game, pattern, data);
  if (kind === "contract" || kind === "landlord") return `${base}: ${bidText(strings, game, pattern, data)}`;
  const extra = [];
  if (data.combo) extra.push(term(strings, game, data.combo));
  for (const bonus of data.bonuses || []) if (typeof bonus === "string") extra.push(term(strings, game, bonus));
  if (data.scopa === true) extra.push(term(strings, game, "scopa"));
  return extra.length ? `${base} (${extra.join(", ")})` : base;
}
