// The page's languages: which one to show, its strings laid over English, the
// switch in the header, and the texts built from the strings tables (error
// messages by code, game terms by the engine's identifiers). docs/languages.md.

import { suitName } from "/static/cards.js";

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

/** A server error for the player: the message for its code in the strings table,
 * else the server's own (English) message. */
export function errorMessage(strings, error) {
  const known = lookup(strings, "errors." + error.code);
  if (known !== undefined) return known;
  const format = lookup(strings, "error") || "{message}";
  return format.replaceAll("{message}", String(error.message || error.code || ""));
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
