// The Cardavia browser client: lobby and table over the cardavia.json
// WebSocket subprotocol (docs/protocol.md). No framework, no build step.
// Every text shown comes from the strings table (static/i18n/<lang>.json).

import { cardElement, sortHand, cardName, suitName, patternsLike } from "/static/cards.js";
import { bidText, chooseLanguage, errorMessage, eventText, languageSwitch, loadStrings, rememberLanguage, term } from "/static/i18n.js";
import { renderMarkdown } from "/static/markdown.js";
import { changeText, ratingGraph, ratingText } from "/static/ratings.js";
import { soundSwitch, yourTurn } from "/static/turn.js";

const PROTOCOL_VERSION = 1;
const store = window.localStorage;
const tab = window.sessionStorage; // this tab's: kept across a reload, not shared with other tabs
let S = {}; // the strings table: English with the chosen language laid over it
let lang = "en";

const app = {
  ws: null,
  nextId: 1,
  waiting: new Map(), // request id -> callback(reply)
  retry: 0,
  welcome: null,
  account: null, // the account this session is logged in to: {account_id, name, bot}
  afterWelcome: null, // a login or registration asked for before the session opened
  games: [],
  tables: [],
  table: null, // the table shown: {info, seat, invite, view, version, timer, result, chat, last}
  selected: new Set(),
  choice: null, // candidate actions waiting for the player's pick
  hint: null, // the server's hint for the shown view: {version, index, action, level}
  rules: null, // the rules shown: {game, lang, nodes | null while loading, shown: language served}
  muted: new Set(), // player ids this page muted (the server keeps their chat from us)
  blocked: new Set(), // player ids this page blocked (quick play keeps us apart)
  profile: null, // the profile page: {profile | null while loading, games, cursor, loading}
  leaderboard: null, // the leaderboard page: {game, bots, page, board | null while loading}
  duplicate: null, // the duplicate page: {sets, set, standings, board, replay} (issue 56)
  tournaments: null, // the tournaments page: {list, finished, shown, standings, next}
  teams: null, // the team matches page: {list, shown, match, board, replay, join} (issue 56)
  teamCall: null, // a team match's next table pushed to us while away from its page: {match_id, board}
  call: null, // a tournament's round table pushed to us: {tournament, round, table, seat, auto, info, held}
  shownGame: null, // the game a replay being drawn is of (its terms and cards): {game, pattern}
  queue: null, // the rated queue this session waits in: the server's "queued" {game, since, wait, rating, with_bots}
};

/** The AI levels a rated table may seat (each rated as a system account, issue 55). */
const RATED_LEVELS = ["easy", "normal", "hard"];

// ---------------------------------------------------------------- helpers
function t(key, args = {}) {
  let text = key.split(".").reduce((o, k) => (o && o[k] !== undefined ? o[k] : undefined), S);
  if (typeof text !== "string") text = key;
  for (const [k, v] of Object.entries(args)) text = text.replaceAll("{" + k + "}", String(v));
  return text;
}

/** The string at ``key``, else ``fallback`` (a key no table has). */
function tOr(key, fallback) {
  const text = t(key);
  return text !== key ? text : fallback;
}

function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "class") node.className = v;
    else if (k === "data") Object.assign(node.dataset, v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 4000);
}

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

function hashParams() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

// ---------------------------------------------------------------- connection
function connect() {
  setStatus(app.retry ? t("reconnecting") : t("connecting"));
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/`, "cardavia.json");
  app.ws = ws;
  ws.onopen = () => hello();
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onclose = () => {
    if (app.ws !== ws) return;
    app.welcome = null;
    app.waiting.clear();
    setStatus(t("reconnecting"));
    const delay = Math.min(5000, 300 * 2 ** app.retry++);
    setTimeout(connect, delay);
  };
}

// A request that names a table is sent again while the table moves to another server
// process (error table_moving, its detail the seconds to wait), for up to MOVING_RETRY_MS;
// one left without any answer for ANSWER_TIMEOUT_MS ends the connection, and the resumed
// session's snapshots resync the page (docs/protocol.md, docs/scaling.md).
const MOVING_RETRY_MS = 30000;
const ANSWER_TIMEOUT_MS = 20000;

function send(message, onReply, givenUp = Date.now() + MOVING_RETRY_MS) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return;
  const id = app.nextId++;
  const ws = app.ws;
  if (message.table === undefined) {
    if (onReply) app.waiting.set(id, onReply);
  } else {
    const timer = setTimeout(() => {
      if (app.ws === ws && app.waiting.has(id)) ws.close(4000, "no answer");
    }, ANSWER_TIMEOUT_MS);
    app.waiting.set(id, (reply) => {
      clearTimeout(timer);
      if (reply.type === "error" && reply.code === "table_moving" && Date.now() < givenUp) {
        const pause = Math.min(5000, Math.max(100, 1000 * (Number(reply.detail) || 1)));
        setStatus(t("reconnecting"));
        setTimeout(() => {
          if (app.ws === ws && app.welcome) setStatus(app.welcome.name);
          send(message, onReply, givenUp);
        }, pause);
      } else if (onReply) {
        onReply(reply);
      } else if (reply.type === "error") {
        toast(errorMessage(S, reply));
      }
    });
  }
  ws.send(JSON.stringify({ ...message, id }));
}

function hello() {
  const token = store.getItem("cardavia.token");
  const name = store.getItem("cardavia.name") || "";
  if (!token && !name) {
    renderName();
    return;
  }
  // update_ref: an act's answer may be the mover's own update; view_changes: an update's
  // view holds only what changed, merged in onView; reasons: a refused move says why as
  // data, put into the page's words by errorMessage (docs/protocol.md, "Optional features")
  const msg = { type: "hello", version: PROTOCOL_VERSION, name: name || "player", features: ["update_ref", "view_changes", "reasons"] };
  if (token) msg.token = token;
  send(msg, (reply) => {
    if (reply.type === "error" && reply.code === "bad_token") {
      store.removeItem("cardavia.token");
      hello();
    } else if (reply.type === "error") {
      toast(errorMessage(S, reply));
      store.removeItem("cardavia.name");
      renderName();
    }
  });
}

function receive(msg) {
  const done = msg.ref !== undefined && msg.ref !== null ? app.waiting.get(msg.ref) : undefined;
  if (done) app.waiting.delete(msg.ref);
  if (holdForCall(msg)) return;
  switch (msg.type) {
    case "welcome":
      onWelcome(msg);
      break;
    case "games":
      app.games = msg.games;
      render();
      break;
    case "tables":
      app.tables = msg.tables;
      if (app.table) {
        const info = app.tables.find((x) => x.id === app.table.info.id);
        if (info) app.table.info = info;
        if (info) quickStarted(info);
      }
      render();
      break;
    case "tournament_table":
      onTournamentTable(msg);
      break;
    case "team_match_table":
      onTeamMatchTable(msg);
      break;
    case "joined":
      if (app.call && app.call.table === msg.table.id) app.call = null; // gone to it
      if (app.teamCall && app.teamCall.match_id === teamMatchOf(msg.table.id)) app.teamCall = null; // seated there
      app.queue = null; // the rated queue seated us (or any other seat was taken)
      openTable(msg.table, msg.seat, msg.invite);
      break;
    case "queued":
      // the answer to a rated quick play, and pushed again when the session resumes
      app.queue = msg;
      if (!app.table) render(true);
      break;
    case "table":
      quickStarted(msg.table);
      if (app.table && app.table.info.id === msg.table.id) {
        app.table.info = msg.table;
        render();
      } else if (!app.table) {
        listTables();
      }
      break;
    case "update":
    case "snapshot":
      onView(msg);
      break;
    case "game_over":
      if (app.table && app.table.info.id === msg.table) {
        app.table.result = msg.result;
        if (app.table.rating && app.table.rating.gameNo === app.table.gameNo) ratingAfter(app.table.rating);
        const board = dupBoardOf(msg.table);
        if (board) standingAfter(app.table, board);
        render();
      }
      break;
    case "chat":
      if (app.table && app.table.info.id === msg.table) {
        app.table.chat.push(msg);
        app.table.chat = app.table.chat.slice(-50);
        render();
      }
      break;
    case "table_closed":
      if (app.table && app.table.info.id === msg.table) closeTable();
      else if (app.call && app.call.table === msg.table) {
        app.call = null; // the called table is gone: no banner leading nowhere
        render(true);
      }
      break;
    case "kicked":
      if (app.table && app.table.info.id === msg.table) closeTable();
      toast(t("moderation.kicked_you"));
      break;
    case "left":
      // no ref: not our leave but our waiting quick-play seat, given up as the old
      // connection closed after this session was back (docs/protocol.md, Quick play)
      if ((msg.ref === null || msg.ref === undefined) && quickWaiting(msg.table)) quickAgain();
      else if (app.table && app.table.info.id === msg.table) closeTable();
      break;
    case "error":
      if (!done) toast(errorMessage(S, msg, app.table ? app.table.info.game : "", pattern())); // in the page's language
      break;
    case "shutdown":
      toast(msg.reason);
      break;
    case "hint":
      if (app.table && app.table.info.id === msg.table && msg.version === app.table.version) {
        app.hint = msg;
        render();
      }
      break;
    default:
      break;
  }
  if (done) done(msg);
}

function onWelcome(msg) {
  app.welcome = msg;
  app.retry = 0;
  store.setItem("cardavia.token", msg.token);
  store.setItem("cardavia.name", msg.name);
  // a resumed session is still logged in; a new one is a guest's until it logs in
  app.account = msg.resumed ? JSON.parse(store.getItem("cardavia.account") || "null") : null;
  if (!app.account) store.removeItem("cardavia.account");
  app.queue = null; // a session still in a rated queue hears "queued" again right after
  showName();
  if (app.afterWelcome) {
    const next = app.afterWelcome;
    app.afterWelcome = null;
    next();
  }
  send({ type: "list_games" });
  listTables();
  const params = hashParams();
  const wanted = params.get("table");
  const invited = params.get("team"); // a team match's invite link: its page, joined
  if (invited) {
    history.replaceState(null, "", location.pathname);
    openTeams(invited, true);
  }
  if (wanted ? !msg.tables.includes(wanted) && quickWaiting(wanted) : quickWaiting(null)) {
    quickAgain(); // the waiting quick-play seat was given up as the page reloaded
  } else if (wanted && !msg.tables.includes(wanted)) {
    const req = { type: params.get("watch") ? "spectate" : "join_table", table: wanted };
    if (params.get("invite")) req.invite = params.get("invite");
    // the page's own address from before a reload: a table gone meanwhile is no news
    // (back to the lobby); a link's table that is not there is said
    const own = tab.getItem(SHOWN_KEY) === wanted;
    send(req, own ? (reply) => reply.type === "error" && closeTable() : undefined);
  } else if (msg.tables.length === 0 && app.table) {
    closeTable();
  }
  render(Boolean(app.duplicate || app.tournaments || app.teams)); // a page over the lobby: drawn afresh (logged out, say)
}

function listTables() {
  send({ type: "list_tables" });
}

// ---------------------------------------------------------------- quick play
// A seat quick play took lasts, while its table waits, only as long as the connection
// (docs/protocol.md, Quick play): a reload gives it up. The tab remembers what it asked
// for and the table it got, finds that seat gone after a reload (or a dropped connection)
// and quick plays again; once the game starts the seat waits for it as at any table.
const QUICK_KEY = "cardavia.quick"; // {game, level, table}: the quick play asked for
const SHOWN_KEY = "cardavia.shown"; // the table this page put in its address

function quickPlay(game, level) {
  // table null: asked, not answered yet (a reload before the answer asks again too)
  tab.setItem(QUICK_KEY, JSON.stringify({ game, level, table: null }));
  send({ type: "quick_play", game, level }, (reply) => {
    if (reply.type === "joined" && reply.table.status === "waiting") {
      tab.setItem(QUICK_KEY, JSON.stringify({ game, level, table: reply.table.id }));
    } else {
      tab.removeItem(QUICK_KEY);
      if (reply.type === "error") toast(errorMessage(S, reply));
    }
  });
}

/** Wait in ``game``'s rated queue (docs/protocol.md, "Rated quick play"): the server
 * answers "queued" and later sends "joined" with the table it seats us at. */
function ratedQuickPlay(game, withBots) {
  send({ type: "quick_play", game, rated: true, with_bots: withBots }, (reply) => {
    if (reply.type === "error") toast(errorMessage(S, reply));
  });
}

/** Leave the rated queue; "not_queued" means it is already over (a table was found,
 * and its "joined" is on the way), so the banner goes either way. */
function leaveQueue() {
  const queue = app.queue;
  send({ type: "leave_queue", game: queue.game }, (reply) => {
    if (reply.type === "error" && reply.code !== "not_queued") {
      toast(errorMessage(S, reply));
      return;
    }
    if (app.queue === queue) app.queue = null;
    if (!app.table) render(true);
  });
}

/** The lobby's banner while the session waits in a rated queue: the game, the rating
 * it waits at, for how long, when the AI fills the seats, and the way out. */
function queueView() {
  const q = app.queue;
  return h(
    "section",
    { class: "queue", role: "status", data: { game: q.game } },
    h("strong", {}, t("queue.waiting", { game: gameTitle(q.game), rating: q.rating })),
    " ",
    h("span", { class: "queue-waited", data: { since: q.since } }, t("queue.waited", { s: Math.max(0, Math.round(Date.now() / 1000 - q.since)) })),
    h("p", {}, t(q.with_bots ? "queue.fill_bots" : "queue.fill", { wait: Math.ceil(q.wait) })),
    h("button", { type: "button", id: "leave-queue", on: { click: leaveQueue } }, t("queue.leave")),
  );
}

/** What this tab's quick play asked for and the waiting table it got: {game, level,
 * table}, or null. */
function quickAsked() {
  return JSON.parse(tab.getItem(QUICK_KEY) || "null");
}

/** Whether this tab's quick play seated it at ``tableId`` (null: not answered yet), a
 * table that still waits. */
function quickWaiting(tableId) {
  const asked = quickAsked();
  return asked !== null && asked.table === tableId;
}

/** The waiting quick-play seat was given up (or never seen): quick play again, as asked. */
function quickAgain() {
  const asked = quickAsked();
  app.table = null;
  app.hint = null;
  history.replaceState(null, "", location.pathname);
  tab.removeItem(SHOWN_KEY);
  quickPlay(asked.game, asked.level);
  render();
}

/** ``info`` changed: a quick-play table that started keeps its seats, nothing to redo. */
function quickStarted(info) {
  if (info.status !== "waiting" && quickWaiting(info.id)) tab.removeItem(QUICK_KEY);
}

// ---------------------------------------------------------------- accounts
function showName() {
  if (!app.welcome) return;
  setStatus(app.account ? t("account.signed_in", { name: app.account.name }) : app.welcome.name);
}

/** Log in (or register) as ``name``; before a session is open, a guest one opens first
 * (a registered name is not for a hello: docs/protocol.md, "Accounts"). */
function signIn(type, name, password) {
  const go = () =>
    send({ type, name, password }, (reply) => {
      if (reply.type === "account") onAccount(reply);
      else if (reply.type === "error") toast(errorMessage(S, reply));
    });
  if (app.welcome) {
    go();
    return;
  }
  app.afterWelcome = go;
  store.setItem("cardavia.name", "guest " + Math.floor(Math.random() * 1e6));
  hello();
}

function onAccount(msg) {
  app.account = { account_id: msg.account_id, name: msg.name, bot: msg.bot };
  store.setItem("cardavia.account", JSON.stringify(app.account));
  store.setItem("cardavia.name", msg.name);
  showName();
  if (app.teams && app.teams.join) {
    const invited = app.teams.join; // an invite link opened before logging in
    app.teams.join = null;
    joinTeam(invited, null, null);
  }
  render(true);
}

/** Log out: the server ends the session and closes the connection; the page then
 * reconnects as nobody and asks for a name again. */
function logout() {
  send({ type: "logout" }, (reply) => {
    if (reply.type !== "ok") {
      toast(errorMessage(S, reply));
      return;
    }
    app.account = null;
    app.queue = null; // the session ends, and its place in a rated queue with it
    for (const key of ["cardavia.account", "cardavia.token", "cardavia.name"]) store.removeItem(key);
  });
}

function accountView() {
  if (app.account) {
    return h(
      "section",
      { class: "account" },
      h("span", { class: "signed-in" }, t("account.signed_in", { name: app.account.name })),
      " ",
      h("button", { type: "button", id: "profile", on: { click: openProfile } }, t("profile.open")),
      " ",
      h("button", { type: "button", id: "logout", on: { click: logout } }, t("account.logout")),
    );
  }
  const name = h("input", { id: "account-name", maxlength: 24, required: true, autocomplete: "username" });
  const password = h("input", { id: "account-password", type: "password", minlength: 8, maxlength: 256, required: true, autocomplete: "current-password" });
  const submit = (type) => (ev) => {
    ev.preventDefault();
    if (!form.reportValidity()) return;
    signIn(type, name.value.trim(), password.value);
    password.value = "";
  };
  const form = h(
    "form",
    { class: "account", on: { submit: submit("login") } },
    h("h2", {}, t("account.title")),
    h("p", {}, t("account.guest")),
    h("label", { for: "account-name" }, t("account.name")),
    name,
    h("label", { for: "account-password" }, t("account.password")),
    password,
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "submit", id: "login" }, t("account.login")),
      h("button", { type: "button", id: "register", on: { click: submit("register") } }, t("account.register")),
    ),
  );
  return form;
}

// ---------------------------------------------------------------- the profile page
/** Show the logged-in account's profile and its stored games (docs/protocol.md, "Game records"). */
function openProfile() {
  app.profile = { profile: null, games: [], cursor: null, loading: true };
  send({ type: "profile" }, (reply) => {
    if (!app.profile) return;
    if (reply.type === "profile") app.profile.profile = reply;
    else toast(errorMessage(S, reply));
    render(true);
  });
  moreHistory();
  render(true);
}

/** The next page of the account's games (the first when none is shown yet). */
function moreHistory() {
  const shown = app.profile;
  const req = { type: "history", limit: 20 };
  if (shown.cursor) req.cursor = shown.cursor;
  shown.loading = true;
  send(req, (reply) => {
    if (app.profile !== shown) return;
    shown.loading = false;
    if (reply.type === "history") {
      shown.games.push(...reply.games);
      shown.cursor = reply.cursor;
    } else toast(errorMessage(S, reply));
    render(true);
  });
}

function closeProfile() {
  app.profile = null;
  render(true);
  listTables();
}

function dateText(seconds, withTime) {
  const options = withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" };
  return new Intl.DateTimeFormat(lang, options).format(new Date(seconds * 1000));
}

function gameTitle(id) {
  const game = app.games.find((g) => g.id === id);
  return game ? game.title : id;
}

function storedSeatText(s) {
  if (s.kind === "ai" && !s.left) return t("seat_ai", { n: s.seat });
  if (s.kind === "bot") return t("seat_bot", { name: s.name || "?" });
  return s.name || "?";
}

function profileView() {
  const shown = app.profile;
  const p = shown.profile;
  const head = p
    ? [
        h("h2", {}, p.name),
        h("p", { class: "member-since" }, t("profile.member_since", { date: dateText(p.member_since, false) })),
        p.games.length
          ? h(
              "table",
              { class: "profile-games" },
              h("tr", {}, h("th", {}, t("profile.game")), h("th", {}, t("profile.played")), h("th", {}, t("profile.col_won"))),
              p.games.map((g) => h("tr", { data: { game: g.game } }, h("td", {}, gameTitle(g.game)), h("td", {}, g.played), h("td", {}, g.won))),
            )
          : h("p", {}, t("profile.no_games")),
        ratingsView(p.ratings || []),
      ]
    : [h("p", {}, t("profile.loading"))];
  const rows = shown.games.map((g) => {
    const mine = g.seats.find((s) => s.seat === g.seat);
    const outcome = !g.seats.some((s) => s.won) ? "draw" : mine && mine.won ? "won" : "lost";
    const seats = g.seats.map((s) => `${storedSeatText(s)} ${s.score}`).join(", ");
    return h(
      "li",
      { class: "history-game", data: { game_id: g.game_id } },
      h("span", { class: "when" }, dateText(g.finished_at, true)),
      " ",
      h("strong", {}, gameTitle(g.game)),
      " ",
      h("span", { class: "outcome " + outcome }, t("profile.result_" + outcome)),
      " ",
      h("span", { class: "seats" }, seats),
      g.private ? h("span", { class: "private" }, " " + t("profile.private")) : null,
      " ",
      h("code", { class: "game-id", title: t("profile.game_id") }, g.game_id),
    );
  });
  return h(
    "div",
    { class: "profile-page" },
    h("button", { type: "button", id: "close-profile", on: { click: closeProfile } }, t("back_to_lobby")),
    ...head,
    h("h3", {}, t("profile.history")),
    rows.length ? h("ol", { class: "history" }, rows) : h("p", {}, shown.loading ? t("profile.loading") : t("profile.no_games")),
    shown.cursor ? h("button", { type: "button", id: "more-history", disabled: shown.loading, on: { click: moreHistory } }, t("profile.more")) : null,
  );
}

/** The account's ratings per game: rating ± deviation (or "1500?" while provisional), its
 * rated games, the last game's change, and the graph of its history (issue 55). */
function ratingsView(ratings) {
  const rows = ratings.map((r) =>
    h(
      "tr",
      { data: { game: r.game } },
      h("td", {}, gameTitle(r.game)),
      h("td", { class: "rating" + (r.provisional ? " provisional" : "") }, ratingText(r.rating, r.deviation, r.provisional)),
      h("td", {}, r.games),
      h("td", { class: "change" + (r.change > 0 ? " up" : r.change < 0 ? " down" : "") }, r.games ? changeText(r.change) : ""),
    ),
  );
  const graphs = ratings
    .filter((r) => (r.history || []).length)
    .map((r) => h("figure", { class: "rating-history", data: { game: r.game } }, h("figcaption", {}, gameTitle(r.game)), ratingGraph(r.history, t("ratings.graph", { game: gameTitle(r.game) }), (at) => dateText(at, false))));
  return h(
    "section",
    { class: "ratings" },
    h("h3", {}, t("ratings.title")),
    rows.length
      ? h(
          "table",
          { class: "profile-ratings" },
          h("tr", {}, h("th", {}, t("profile.game")), h("th", {}, t("ratings.rating")), h("th", {}, t("ratings.games")), h("th", {}, t("ratings.change"))),
          rows,
        )
      : h("p", {}, t("ratings.none")),
    ratings.some((r) => r.provisional) ? h("p", { class: "note" }, t("ratings.provisional")) : null,
    graphs,
  );
}

// ---------------------------------------------------------------- the leaderboard page
/** Show a page of ``game``'s leaderboard: its people, or with ``bots`` its bot accounts
 * and AI levels (docs/protocol.md, "Ratings"). */
function openLeaderboard(game, bots = false, page = 1) {
  const shown = { game, bots, page, board: null };
  app.leaderboard = shown;
  send({ type: "leaderboard", game, bots, page }, (reply) => {
    if (app.leaderboard !== shown) return;
    if (reply.type === "leaderboard") shown.board = reply;
    else {
      toast(errorMessage(S, reply));
      if (page > 1) shown.board = { game, bots, page, pages: page - 1, entries: [] };
      else app.leaderboard = null;
    }
    render(true);
  });
  render(true);
}

function closeLeaderboard() {
  app.leaderboard = null;
  render(true);
  listTables();
}

function leaderboardView() {
  const shown = app.leaderboard;
  const board = shown.board;
  const me = app.account ? app.account.name.toLowerCase() : null;
  const pick = h(
    "select",
    { id: "leaderboard-game", "aria-label": t("profile.game"), on: { change: (ev) => openLeaderboard(ev.target.value, shown.bots) } },
    app.games.map((g) => h("option", { value: g.id, selected: g.id === shown.game }, g.title)),
  );
  const tab = (bots, id, key) => h("button", { type: "button", id, "aria-pressed": String(shown.bots === bots), on: { click: () => openLeaderboard(shown.game, bots) } }, t(key));
  let body;
  if (!board) body = h("p", {}, t("profile.loading"));
  else if (!board.entries.length) body = h("p", { class: "empty" }, board.page > board.pages && board.pages >= 1 ? t("leaderboard.past_end", { page: board.page, pages: board.pages }) : t("leaderboard.empty"));
  else
    body = h(
      "table",
      { class: "leaderboard" },
      h("tr", {}, h("th", {}, t("leaderboard.rank")), h("th", {}, t("leaderboard.name")), h("th", {}, t("ratings.rating")), h("th", {}, t("ratings.games")), h("th", {}, t("leaderboard.last_played"))),
      board.entries.map((e) =>
        h(
          "tr",
          { class: me !== null && e.name.toLowerCase() === me ? "me" : null, data: { rank: e.rank } },
          h("td", { class: "rank" }, e.rank),
          h("td", { class: "name" }, e.bot ? t("seat_bot", { name: e.name }) : e.name), // bots are always labelled
          h("td", { class: "rating" }, ratingText(e.rating, e.deviation, false)),
          h("td", {}, e.games),
          h("td", {}, dateText(e.last_played, false)),
        ),
      ),
    );
  const pages = board ? Math.max(board.pages, 1) : 1;
  return h(
    "div",
    { class: "leaderboard-page", data: { game: shown.game, bots: String(shown.bots) } },
    h("button", { type: "button", id: "close-leaderboard", on: { click: closeLeaderboard } }, t("back_to_lobby")),
    h("h2", {}, t("leaderboard.title", { game: gameTitle(shown.game) })),
    h("div", { class: "buttons" }, pick, tab(false, "leaderboard-people", "leaderboard.people"), tab(true, "leaderboard-bots", "leaderboard.bots")),
    body,
    h(
      "div",
      { class: "buttons paging" },
      h("button", { type: "button", id: "leaderboard-prev", disabled: !board || shown.page <= 1, on: { click: () => openLeaderboard(shown.game, shown.bots, Math.min(shown.page - 1, pages)) } }, t("leaderboard.previous")),
      h("span", { class: "page" }, t("leaderboard.page", { page: shown.page, pages })),
      h("button", { type: "button", id: "leaderboard-next", disabled: !board || shown.page >= board.pages, on: { click: () => openLeaderboard(shown.game, shown.bots, shown.page + 1) } }, t("leaderboard.next")),
    ),
  );
}

// ---------------------------------------------------------------- live sections
/** Redraw the section ``id`` alone (a live refresh: the rest of the page, a form being
 * filled among it, stays); the control that had the focus gets it back by its
 * data-focus name, so a keyboard user is not thrown off by the refresh. */
function redraw(id, build) {
  const old = document.getElementById(id);
  if (!old) return;
  const active = document.activeElement;
  const key = active && old.contains(active) && active.dataset ? active.dataset.focus : undefined;
  const fresh = build();
  old.replaceWith(fresh);
  if (key) {
    const sel = `[data-focus="${CSS.escape(key)}"]`;
    const again = fresh.matches(sel) ? fresh : fresh.querySelector(sel);
    if (again) again.focus();
  }
}

/** A page's number: "+3.25" for IMPs (with their sign, as the terminal prints them). */
function signed(value, digits) {
  const text = Math.abs(value).toFixed(digits);
  return value > 0 ? `+${text}` : value < 0 ? `-${text}` : text;
}

/** The games a page offers (the lobby's list), as options of a select. */
function gameOptions(ids, selected) {
  return ids.map((id) => h("option", { value: id, selected: id === selected }, gameTitle(id)));
}

// ---------------------------------------------------------------- duplicate sets (issue 56)
// Duplicate against the AI (docs/duplicate.md): the open sets, today's daily ones among
// them; a board is played at a private table the server opens ("joined", as a join is
// answered), and only once the player finished a board does the server show its results
// and the others' replays (board_not_played otherwise: the page says so, no card shown).
const DUP_KEY = "cardavia.duplicate"; // {table id: {set_id, board, boards}}: this tab's boards
const DUP_GAMES = ["scopa", "cicera", "doudizhu", "schafkopf"]; // the games with duplicate boards
const STANDING_TRIES = 20;
const STANDING_PAUSE_MS = 500;

function dupBoards() {
  return JSON.parse(tab.getItem(DUP_KEY) || "{}");
}

/** The duplicate board a table of this tab plays ({set_id, board, boards}), or null. */
function dupBoardOf(tableId) {
  return dupBoards()[tableId] || null;
}

function noteDupBoard(tableId, ref) {
  const all = dupBoards();
  all[tableId] = ref;
  tab.setItem(DUP_KEY, JSON.stringify(all));
}

/** Show the duplicate page (with ``setId``: that set opened, with ``board``: its results). */
function openDuplicate(setId = null, board = null) {
  app.duplicate = { sets: null, set: null, standings: null, board: null, replay: null };
  closePages("duplicate");
  listSets();
  if (setId) selectSet(setId, board);
  render(true);
}

function listSets() {
  const shown = app.duplicate;
  send({ type: "list_duplicate_sets" }, (reply) => {
    if (app.duplicate !== shown) return;
    if (reply.type === "duplicate_sets") shown.sets = reply.sets;
    else toast(errorMessage(S, reply));
    if (!app.table) redraw("dup-sets", setsView);
    if (!app.table) redraw("dup-set", setView);
  });
}

/** The set shown: its standings, its boards, and board ``board``'s results if asked. */
function selectSet(setId, board = null) {
  const shown = app.duplicate;
  shown.set = setId;
  shown.standings = null;
  shown.board = null;
  shown.replay = null;
  loadStandings();
  if (board) showBoard(board);
  render(true);
}

function loadStandings() {
  const shown = app.duplicate;
  const setId = shown.set;
  send({ type: "duplicate_standings", set_id: setId }, (reply) => {
    if (app.duplicate !== shown || shown.set !== setId) return;
    if (reply.type === "duplicate_standings") shown.standings = reply;
    else toast(errorMessage(S, reply));
    if (!app.table) redraw("dup-standings", () => dupStandingsView(shown.standings));
  });
}

/** Ask for board ``n``'s results: the table of results and the others' replays, or the
 * server's refusal (a board not played yet) said in a line. */
function showBoard(n) {
  const shown = app.duplicate;
  const setId = shown.set;
  shown.board = { board: n, data: null, refused: null };
  shown.replay = null;
  send({ type: "duplicate_board", set_id: setId, board: n }, (reply) => {
    if (app.duplicate !== shown || shown.set !== setId || !shown.board || shown.board.board !== n) return;
    if (reply.type === "duplicate_board") shown.board.data = reply;
    else shown.board.refused = reply;
    if (!app.table) render(true);
  });
  render(true);
}

/** Play my next board of ``set``: the server opens its table and seats me ("joined"). */
function playBoard(set) {
  const board = set.next_board;
  send({ type: "play_duplicate", set_id: set.set_id }, (reply) => {
    if (reply.type === "joined") noteDupBoard(reply.table.id, { set_id: set.set_id, board, boards: set.boards });
    else toast(errorMessage(S, reply));
  });
}

/** A field's value in a form of the page. */
function formValue(form, name) {
  return form.querySelector(`[name="${name}"]`).value;
}

/** Send a request that makes one thing (a set, a tournament), answered by a list of
 * ``field`` holding it: ``onMade`` gets it; a refusal is said. */
function make(msg, answer, field, onMade) {
  send(msg, (reply) => {
    if (reply.type === answer) onMade(reply[field][0]);
    else toast(errorMessage(S, reply));
  });
}

function createSet(form) {
  const read = (name) => formValue(form, name);
  const msg = { type: "create_duplicate_set", game: read("game"), level: read("level"), boards: Number(read("boards")), minutes: Number(read("minutes")), seat: Number(read("seat")) };
  make(msg, "duplicate_sets", "sets", (made) => {
    toast(t("duplicate.created", { id: made.set_id }));
    if (app.duplicate) selectSet(made.set_id);
    if (app.duplicate) listSets();
  });
}

function dupKind(set) {
  return set.kind === "daily" ? t("duplicate.daily") : t("duplicate.on_demand");
}

/** The open sets, by game: daily and on-demand, the AI level and seat, the boards, when
 * it closes, how many play it, and my next board. */
function setsView() {
  const shown = app.duplicate;
  const sets = shown.sets;
  let body;
  if (sets === null) body = h("p", {}, t("profile.loading"));
  else if (!sets.length) body = h("p", { class: "empty" }, t("duplicate.no_sets"));
  else {
    const games = [...new Set(sets.map((s) => s.game))];
    body = games.map((game) =>
      h(
        "section",
        { class: "dup-game", data: { game } },
        h("h3", {}, gameTitle(game)),
        h(
          "ul",
          { class: "dup-sets" },
          sets
            .filter((s) => s.game === game)
            .map((s) =>
              h(
                "li",
                { class: "dup-set-row" + (s.set_id === shown.set ? " open" : ""), data: { set: s.set_id, kind: s.kind } },
                h("strong", {}, dupKind(s)),
                " ",
                h("span", {}, t("duplicate.set_line", { level: tOr("levels." + s.level, s.level), seat: s.seat, boards: s.boards, closes: dateText(s.closes_at, true), players: s.players })),
                " ",
                h("span", { class: "mine" }, s.next_board === null || s.next_board === undefined ? (app.account ? t("duplicate.all_played") : "") : t("duplicate.next_board", { n: s.next_board })),
                " ",
                h("button", { type: "button", class: "open-set", data: { focus: "open-" + s.set_id }, "aria-pressed": String(s.set_id === shown.set), on: { click: () => selectSet(s.set_id) } }, t("duplicate.open_set")),
              ),
            ),
        ),
      ),
    );
  }
  return h("section", { id: "dup-sets", class: "dup-list" }, h("h2", {}, t("duplicate.sets")), body);
}

/** The form for an on-demand set (logged in): game, AI level, boards, minutes open, seat. */
function createSetView() {
  const games = app.games.filter((g) => DUP_GAMES.includes(g.id));
  if (!app.account) return loginToPlay("duplicate.login_to_play");
  if (!games.length) return null;
  const levelSelect = h("select", { name: "level", id: "dup-level" });
  const seatInput = h("input", { type: "number", name: "seat", id: "dup-seat", min: 0, max: 0, value: 0 });
  const fillLevels = (id) => {
    const game = games.find((g) => g.id === id) || games[0];
    levelSelect.replaceChildren(...(game.levels || []).filter((l) => l !== "random").map((l) => h("option", { value: l, selected: l === "normal" }, tOr("levels." + l, l))));
    seatInput.max = String(game.seats - 1);
    if (Number(seatInput.value) > game.seats - 1) seatInput.value = "0";
  };
  const gameSelect = h("select", { name: "game", id: "dup-game", on: { change: (ev) => fillLevels(ev.target.value) } }, gameOptions(games.map((g) => g.id), games[0].id));
  fillLevels(games[0].id);
  const form = h(
    "form",
    { class: "dup-create", on: { submit: (ev) => (ev.preventDefault(), form.reportValidity() && createSet(form)) } },
    h("h3", {}, t("duplicate.create_title")),
    h("label", { class: "option" }, t("profile.game"), " ", gameSelect),
    h("label", { class: "option" }, t("ai_level"), " ", levelSelect),
    h("label", { class: "option" }, t("duplicate.boards"), " ", h("input", { type: "number", name: "boards", id: "dup-boards", min: 1, max: 32, value: 8, required: true })),
    h("label", { class: "option" }, t("duplicate.minutes"), " ", h("input", { type: "number", name: "minutes", id: "dup-minutes", min: 10, max: 10080, value: 60, required: true })),
    h("label", { class: "option" }, t("duplicate.seat"), " ", seatInput),
    h("div", { class: "buttons" }, h("button", { type: "submit", id: "dup-create" }, t("duplicate.create"))),
  );
  return form;
}

/** The set opened: play my next board, its live standings, its boards' results. */
function setView() {
  const shown = app.duplicate;
  if (!shown.set) return h("section", { id: "dup-set", hidden: true });
  const set = (shown.sets || []).find((s) => s.set_id === shown.set) || null;
  const boards = set ? set.boards : shown.board ? shown.board.board : 0;
  const next = set ? set.next_board : null;
  const play =
    set && app.account && next !== null && next !== undefined
      ? h("button", { type: "button", id: "dup-play", data: { focus: "play" }, on: { click: () => playBoard(set) } }, t("duplicate.play", { n: next }))
      : null;
  const picks = Array.from({ length: boards }, (_, i) => i + 1).map((n) =>
    h("button", { type: "button", class: "dup-board" + (next !== null && next !== undefined && n >= next ? " unplayed" : ""), data: { board: n, focus: "board-" + n }, "aria-pressed": String(Boolean(shown.board && shown.board.board === n)), on: { click: () => showBoard(n) } }, t("duplicate.board_n", { n })),
  );
  return h(
    "section",
    { id: "dup-set", class: "dup-set", data: { set: shown.set } },
    h("h2", {}, set ? t("duplicate.set_title", { game: gameTitle(set.game), kind: dupKind(set) }) : shown.set),
    h("p", { class: "set-id" }, h("code", {}, shown.set), set ? ` · ${t("duplicate.closes", { when: dateText(set.closes_at, true) })}` : ""),
    play,
    h("h3", {}, t("duplicate.standings")),
    dupStandingsView(shown.standings),
    picks.length ? h("h3", {}, t("duplicate.boards_title")) : null,
    picks.length ? h("div", { class: "buttons dup-boards" }, picks) : null,
    shown.board ? boardView(shown.board) : null,
    shown.replay ? replayView(shown.replay) : null,
  );
}

/** A set's standings: rank, name, boards, matchpoints of the top (and per cent), IMPs. */
function dupStandingsView(table) {
  let body;
  if (!table) body = h("p", {}, t("profile.loading"));
  else if (!table.standings.length) body = h("p", { class: "empty" }, t("duplicate.no_results"));
  else {
    const me = app.account ? app.account.name.toLowerCase() : null;
    body = h(
      "table",
      { class: "dup-standings" },
      h("tr", {}, h("th", {}, t("leaderboard.rank")), h("th", {}, t("leaderboard.name")), h("th", {}, t("duplicate.boards")), h("th", {}, t("duplicate.matchpoints")), h("th", {}, "%"), h("th", {}, t("duplicate.imps"))),
      table.standings.map((s) =>
        h(
          "tr",
          { class: me !== null && s.name.toLowerCase() === me ? "me" : null, data: { rank: s.rank, name: s.name } },
          h("td", { class: "rank" }, s.rank),
          h("td", { class: "name" }, s.name),
          h("td", {}, s.boards),
          h("td", { class: "mp" }, `${s.matchpoints}/${s.top}`),
          h("td", { class: "percent" }, s.percent.toFixed(1)),
          h("td", { class: "imps" }, signed(s.imps, 2)),
        ),
      ),
    );
  }
  return h("div", { id: "dup-standings", class: "dup-standings-box" }, body);
}

/** A board's table of results (everyone's score, matchpoints, IMPs) with a replay
 * button on each other player's line; or the server's refusal, in words. */
function boardView(shown) {
  const head = h("h3", {}, t("duplicate.board_title", { n: shown.board }));
  if (shown.refused) return h("section", { class: "dup-board-view refused", data: { board: shown.board, code: shown.refused.code || "" } }, head, h("p", { class: "refusal", role: "status" }, errorMessage(S, shown.refused)));
  if (!shown.data) return h("section", { class: "dup-board-view", data: { board: shown.board } }, head, h("p", {}, t("profile.loading")));
  const me = app.account ? app.account.name.toLowerCase() : null;
  const replays = shown.data.replays;
  const replayOf = (name) => replays.find((r) => r.seats.some((s) => s.kind === "human" && (s.name || "").toLowerCase() === name.toLowerCase())) || null;
  return h(
    "section",
    { class: "dup-board-view", data: { board: shown.board } },
    head,
    h(
      "table",
      { class: "dup-results" },
      h("tr", {}, h("th", {}, t("leaderboard.name")), h("th", {}, t("duplicate.score")), h("th", {}, t("duplicate.matchpoints")), h("th", {}, t("duplicate.imps")), h("th", {}, "")),
      shown.data.results.map((r) => {
        const replay = me !== null && r.name.toLowerCase() === me ? null : replayOf(r.name);
        return h(
          "tr",
          { class: me !== null && r.name.toLowerCase() === me ? "me" : null, data: { name: r.name } },
          h("td", { class: "name" }, r.name),
          h("td", { class: "score" }, signed(r.score, 0)),
          h("td", { class: "mp" }, `${r.matchpoints}/${r.top}`),
          h("td", { class: "imps" }, signed(r.imps, 2)),
          h("td", {}, replay ? h("button", { type: "button", class: "replay-button", data: { name: r.name, focus: "replay-" + r.name }, on: { click: () => openReplay(replay, r.name) } }, t("replay.open")) : null),
        );
      }),
    ),
  );
}

/** Where the player stands after a board: their line of the set's standings, once the
 * board's result is in (the record is written just after the game ends). */
function standingAfter(table, ref, tries = STANDING_TRIES) {
  if (!app.account || tries <= 0) return;
  send({ type: "duplicate_standings", set_id: ref.set_id }, (reply) => {
    if (!app.table || app.table !== table || reply.type !== "duplicate_standings") return;
    const me = app.account.name.toLowerCase();
    const line = reply.standings.find((s) => s.name.toLowerCase() === me);
    if (line && line.boards >= ref.board) {
      table.dupStanding = { line, players: reply.standings.length };
      render();
    } else setTimeout(() => standingAfter(table, ref, tries - 1), STANDING_PAUSE_MS);
  });
}

/** The end of a board at its table: where I stand, the board's results, my next board. */
function dupAfterBoard(table, ref) {
  const st = table.dupStanding;
  const leave = (then) => send({ type: "leave", table: table.info.id }, () => then());
  return h(
    "div",
    { class: "dup-after", data: { set: ref.set_id, board: ref.board } },
    h("p", { class: "dup-done" }, t("duplicate.board_done", { n: ref.board, boards: ref.boards })),
    st
      ? h("p", { class: "dup-stand", role: "status" }, t("duplicate.stand", { rank: st.line.rank, players: st.players, mp: st.line.matchpoints, top: st.line.top, percent: st.line.percent.toFixed(1), imps: signed(st.line.imps, 2) }))
      : h("p", { class: "dup-stand" }, t("profile.loading")),
    h("button", { type: "button", class: "dup-results-button", on: { click: () => leave(() => openDuplicate(ref.set_id, ref.board)) } }, t("duplicate.see_results")),
    ref.board < ref.boards
      ? h("button", { type: "button", class: "dup-next", on: { click: () => leave(() => playBoard({ set_id: ref.set_id, next_board: ref.board + 1, boards: ref.boards })) } }, t("duplicate.play", { n: ref.board + 1 }))
      : null,
  );
}

// ---------------------------------------------------------------- replays
// A finished game, every card shown (the server's "replay": the opening deal, then every
// step's events): the hands as they were at each step and the step's move, stepped
// through with buttons or the arrow keys. Used for the other players' play of a board.
function openReplay(replay, name, page = app.duplicate) {
  page.replay = { replay, name, step: 0, page };
  render(true);
  const box = document.querySelector(".replay-view");
  if (box) box.focus();
}

/** The hands and the table's cards after ``upTo`` steps (a hand event gives a seat's
 * whole hand; a played card leaves it, Dou Dizhu's bottom cards join the landlord's;
 * a capture takes cards off the table, a card that takes nothing stays there). */
function replayState(replay, upTo) {
  const hands = {};
  let table = null;
  const apply = (event) => {
    const data = event.data || {};
    if (Array.isArray(data.table) && event.kind === "deal") table = data.table.slice();
    if (event.kind === "hand" && typeof data.seat === "number" && Array.isArray(data.hand)) hands[data.seat] = data.hand.slice();
    if (event.kind === "landlord" && typeof data.seat === "number" && hands[data.seat] && Array.isArray(data.bottom)) hands[data.seat] = [...hands[data.seat], ...data.bottom];
    if (event.kind === "play" && typeof data.seat === "number" && hands[data.seat]) {
      const played = typeof data.card === "string" ? [data.card] : Array.isArray(data.cards) ? data.cards : [];
      hands[data.seat] = hands[data.seat].filter((c) => !played.includes(c));
      if (table && played.length) {
        const taken = Array.isArray(data.captured) ? data.captured : [];
        table = taken.length ? table.filter((c) => !taken.includes(c)) : [...table, ...played];
      }
    }
  };
  replay.start_events.forEach(apply);
  replay.steps.slice(0, upTo).forEach((step) => step.events.forEach(apply));
  return { hands, table };
}

function replayView(shown) {
  const replay = shown.replay;
  app.shownGame = { game: replay.game, pattern: (replay.options && replay.options.pattern) || null };
  const total = replay.steps.length;
  const step = Math.max(0, Math.min(shown.step, total));
  const go = (n) => {
    shown.step = Math.max(0, Math.min(n, total));
    redraw("replay-view", () => replayView(shown));
  };
  const seats = replay.seats;
  const { hands, table } = replayState(replay, step);
  const current = step > 0 ? replay.steps[step - 1] : null;
  let what;
  if (!current) what = t("replay.deal");
  else {
    const moves = current.events.filter((e) => e.data && e.data.seat === current.seat).map((e) => moveOf(e.kind, e.data)).filter(Boolean);
    const words = moves.length ? moves.map(moveWords).join("; ") : current.events.map((e) => eventText(S, replay.game, pattern(), e)).join(", ");
    what = t("played", { name: seatName(seats[current.seat]), what: words });
  }
  const button = (id, key, n, disabled) => h("button", { type: "button", id, data: { focus: id }, disabled, on: { click: () => go(n) } }, t(key));
  const node = h(
    "section",
    {
      id: "replay-view",
      class: "replay-view",
      data: { focus: "replay", step, steps: total },
      tabindex: 0,
      "aria-label": t("replay.title", { name: shown.name }),
      on: {
        keydown: (ev) => {
          if (ev.key === "ArrowRight") go(step + 1);
          else if (ev.key === "ArrowLeft") go(step - 1);
          else return;
          ev.preventDefault();
        },
      },
    },
    h("div", { class: "rules-head" }, h("h3", {}, t("replay.title", { name: shown.name })), h("button", { type: "button", class: "replay-close", on: { click: () => ((shown.page.replay = null), render(true)) } }, t("close"))),
    h(
      "div",
      { class: "buttons replay-controls" },
      button("replay-first", "replay.first", 0, step === 0),
      button("replay-prev", "replay.previous", step - 1, step === 0),
      h("span", { class: "replay-step", "aria-live": "polite" }, t("replay.step", { n: step, total })),
      button("replay-next", "replay.next", step + 1, step >= total),
      button("replay-last", "replay.last", total, step >= total),
    ),
    h("p", { class: "replay-move" }, what, current && current.by !== "human" ? ` ${current.by === "ai" ? t("by_ai") : current.by === "timer" ? t("by_timer") : ""}` : ""),
    table ? h("div", { class: "replay-table" }, h("h4", {}, t("table")), cards(table, { small: true })) : null,
    h(
      "ol",
      { class: "replay-hands" },
      seats.map((s) => h("li", { class: "replay-seat", data: { seat: s.seat } }, h("span", { class: "who" }, seatName(s)), cards(sortHand(hands[s.seat] || [], pattern(), replay.game), { small: true }))),
    ),
    step >= total && replay.result ? h("p", { class: "replay-result" }, `${t("scores")}: ${(replay.result.scores || []).join(" – ")}`) : null,
  );
  app.shownGame = null;
  return node;
}

/** A page over the lobby: its way back, its title, its sections. */
/** Where a page's form would be, for a visitor who is not logged in: why, and the form
 * to log in or register right there (an invite link followed before is then joined). */
function loginToPlay(key) {
  return h("div", { class: "login-to-play" }, h("p", { class: "note" }, t(key)), accountView());
}

function pageView(name, close, title, ...sections) {
  return h("div", { class: `${name}-page` }, h("button", { type: "button", id: `close-${name}`, on: { click: close } }, t("back_to_lobby")), h("h2", {}, title), ...sections);
}

function duplicateView() {
  return pageView("duplicate", toLobby, t("duplicate.title"), h("p", { class: "note" }, t("duplicate.about")), setView(), setsView(), createSetView());
}

// ---------------------------------------------------------------- tournaments (issue 56)
// The list (scheduled and running; finished ones too on request), creating one,
// registering and withdrawing, standings with their tie-breaks, and the player's table:
// the server seats a registered player itself when their round starts ("tournament_table",
// then "joined"); on this page the table opens at once, anywhere else a banner offers it.
const TOURNEY_TABLE = /^(.+)-r(\d+)-t\d+$/; // a tournament table's id: TOURNAMENT-rROUND-tN

function tournamentOf(tableId) {
  const m = TOURNEY_TABLE.exec(tableId || "");
  return m ? m[1] : null;
}

function openTournaments(shownId = null) {
  app.tournaments = { list: null, finished: app.tournaments ? app.tournaments.finished : false, shown: null, standings: null, next: null };
  closePages("tournaments");
  listTournaments();
  if (shownId) showTournament(shownId);
  render(true);
}

function listTournaments() {
  const shown = app.tournaments;
  send({ type: "list_tournaments", finished: shown.finished }, (reply) => {
    if (app.tournaments !== shown) return;
    if (reply.type === "tournaments") shown.list = reply.tournaments;
    else toast(errorMessage(S, reply));
    if (!app.table) redraw("tourney-list", tournamentListView);
  });
}

function showTournament(id) {
  const shown = app.tournaments;
  if (shown.shown !== id) {
    shown.standings = null;
    shown.next = null;
  }
  shown.shown = id;
  loadTournament();
  render(true);
}

/** The shown tournament's standings, and my table in it while it runs. */
function loadTournament() {
  const shown = app.tournaments;
  const id = shown.shown;
  send({ type: "standings", tournament: id }, (reply) => {
    if (app.tournaments !== shown || shown.shown !== id) return;
    if (reply.type !== "standings") {
      toast(errorMessage(S, reply));
      return;
    }
    shown.standings = reply;
    const info = reply.tournament;
    if (info.registered && info.status === "running") {
      send({ type: "next_tournament_table", tournament: id }, (next) => {
        if (app.tournaments !== shown || shown.shown !== id) return;
        shown.next = next.type === "tournament_table" ? next : null;
        if (!app.table) redraw("tourney-detail", tournamentDetailView);
      });
    } else shown.next = null;
    if (!app.table) redraw("tourney-detail", tournamentDetailView);
  });
}

function enter(info, register) {
  send({ type: register ? "register_tournament" : "withdraw_tournament", tournament: info.id }, (reply) => {
    if (reply.type !== "ok") {
      toast(errorMessage(S, reply));
      return;
    }
    toast(t(register ? "tournaments.registered" : "tournaments.withdrawn_you", { name: info.name }));
    if (!app.tournaments) return;
    listTournaments();
    if (app.tournaments.shown === info.id) loadTournament();
  });
}

function tournamentLength(info) {
  return info.rounds !== null && info.rounds !== undefined ? t("tournaments.rounds_n", { n: info.rounds }) : t("tournaments.minutes_n", { n: Math.round((info.duration || 0) / 60) });
}

function kindText(kind) {
  return tOr("tournaments.kinds." + kind, kind);
}

function statusText(status) {
  return tOr("tournaments.statuses." + status, status);
}

function tournamentListView() {
  const shown = app.tournaments;
  const list = shown.list;
  let body;
  if (list === null) body = h("p", {}, t("profile.loading"));
  else if (!list.length) body = h("p", { class: "empty" }, t("tournaments.none"));
  else
    body = h(
      "ul",
      { class: "tourney-rows" },
      list.map((info) =>
        h(
          "li",
          { class: "tourney-row" + (info.id === shown.shown ? " open" : ""), data: { tournament: info.id, status: info.status } },
          h("strong", {}, info.name),
          " ",
          h("span", { class: "status status-" + info.status }, statusText(info.status)),
          " ",
          h("span", {}, t("tournaments.line", { game: gameTitle(info.game), kind: kindText(info.kind), start: dateText(info.starts_at, true), length: tournamentLength(info), players: info.players })),
          info.turn_timer ? h("span", {}, " · " + t("tournaments.timer_s", { s: info.turn_timer })) : null,
          info.registered ? h("span", { class: "badge mine" }, t("tournaments.mine")) : null,
          " ",
          h("button", { type: "button", class: "standings-button", data: { focus: "show-" + info.id }, "aria-pressed": String(info.id === shown.shown), on: { click: () => showTournament(info.id) } }, t("tournaments.standings")),
          app.account && info.status !== "finished"
            ? info.registered
              ? h("button", { type: "button", class: "withdraw", data: { focus: "withdraw-" + info.id }, on: { click: () => enter(info, false) } }, t("tournaments.withdraw"))
              : h("button", { type: "button", class: "register", data: { focus: "register-" + info.id }, on: { click: () => enter(info, true) } }, t("tournaments.register"))
            : null,
        ),
      ),
    );
  const finished = h("input", { type: "checkbox", id: "tourney-finished", checked: shown.finished, on: { change: (ev) => ((shown.finished = ev.target.checked), listTournaments()) } });
  return h("section", { id: "tourney-list", class: "tourney-list" }, h("h2", {}, t("tournaments.list")), h("label", { class: "option" }, finished, " ", t("tournaments.show_finished")), body);
}

/** The shown tournament: its standings with their tie-breaks, and my table. */
function tournamentDetailView() {
  const shown = app.tournaments;
  if (!shown.shown) return h("section", { id: "tourney-detail", hidden: true });
  const st = shown.standings;
  if (!st) return h("section", { id: "tourney-detail", class: "tourney-detail", data: { tournament: shown.shown } }, h("p", {}, t("profile.loading")));
  const info = st.tournament;
  const me = app.account ? app.account.name.toLowerCase() : null;
  const next = shown.next;
  let mine = null;
  if (info.registered && info.status === "running") {
    mine = next && next.table
      ? h("p", { class: "next-table" }, t("tournaments.your_table", { round: next.round }), " ", h("button", { type: "button", id: "go-next-table", data: { focus: "go-next" }, on: { click: () => goToTable(next.table, next.seat) } }, t("tournaments.go")))
      : h("p", { class: "next-table none" }, t("tournaments.no_table"));
  }
  // a Duplicate Swiss ranks by matchpoints across the round's tables (docs/tournaments.md)
  const duplicate = st.standings.some((s) => s.matchpoints !== null && s.matchpoints !== undefined);
  return h(
    "section",
    { id: "tourney-detail", class: "tourney-detail", data: { tournament: info.id, status: info.status } },
    h("h2", {}, info.name),
    h("p", {}, statusText(info.status), " · ", t("tournaments.line", { game: gameTitle(info.game), kind: kindText(info.kind), start: dateText(info.starts_at, true), length: tournamentLength(info), players: info.players }), info.round ? " · " + t("tournaments.round_n", { n: info.round }) : ""),
    mine,
    st.standings.length
      ? h(
          "table",
          { class: "tourney-standings" },
          h("tr", {}, h("th", {}, t("leaderboard.rank")), h("th", {}, t("leaderboard.name")), duplicate ? h("th", {}, t("duplicate.matchpoints")) : null, h("th", {}, t("tournaments.points")), h("th", { title: t("tournaments.buchholz_title") }, t("tournaments.buchholz")), h("th", { title: t("tournaments.h2h_title") }, t("tournaments.h2h")), h("th", {}, t("tournaments.game_score")), h("th", {}, t("tournaments.games"))),
          st.standings.map((s) =>
            h(
              "tr",
              { class: (me !== null && s.name.toLowerCase() === me ? "me" : "") + (s.withdrawn ? " withdrawn" : ""), data: { rank: s.rank, name: s.name } },
              h("td", { class: "rank" }, s.rank),
              h("td", { class: "name" }, s.name, s.withdrawn ? h("span", { class: "withdrawn-mark" }, ` (${t("tournaments.withdrawn")})`) : null),
              duplicate ? h("td", { class: "mp" }, s.matchpoints ?? 0) : null,
              h("td", { class: "points" }, pointsText(s.points)),
              h("td", { class: "buchholz" }, pointsText(s.buchholz)),
              h("td", { class: "h2h" }, pointsText(s.head_to_head)),
              h("td", {}, s.game_score),
              h("td", {}, s.games),
            ),
          ),
        )
      : h("p", { class: "empty" }, t("tournaments.no_standings")),
  );
}

/** Tournament points in the page's language, to two decimals at most (a table of three
 * shares its points: a third of a point is "0.33"). */
function pointsText(value) {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 2 }).format(value);
}

/** "YYYY-MM-DDTHH:MM:SS" of ``date`` in the browser's time zone (a datetime-local value). */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The form for a tournament (logged in): name, game, kind, start, rounds (Swiss) or
 * minutes (arena), the turn timer and the AI level that fills the seats left over. */
function createTournamentView() {
  if (!app.account) return loginToPlay("tournaments.login_to_create");
  const kind = h("select", { name: "kind", id: "tourney-kind" }, ["swiss", "arena", "duplicate-swiss"].map((k) => h("option", { value: k }, kindText(k))));
  const rounds = h("label", { class: "option rounds" }, t("tournaments.rounds"), " ", h("input", { type: "number", name: "rounds", id: "tourney-rounds", min: 1, max: 50, value: 3, required: true }));
  const minutes = h("label", { class: "option duration", hidden: true }, t("tournaments.minutes"), " ", h("input", { type: "number", name: "minutes", id: "tourney-minutes", min: 1, max: 1440, value: 30 }));
  kind.addEventListener("change", () => {
    const arena = kind.value === "arena";
    rounds.hidden = arena;
    minutes.hidden = !arena;
    rounds.querySelector("input").required = !arena;
    minutes.querySelector("input").required = arena;
  });
  const levels = ((app.games[0] && app.games[0].levels) || ["normal"]).filter((l) => l !== "random");
  const form = h(
    "form",
    {
      class: "tourney-create",
      on: {
        submit: (ev) => {
          ev.preventDefault();
          if (!form.reportValidity()) return;
          const read = (name) => formValue(form, name);
          const starts = new Date(read("starts")).getTime() / 1000;
          const msg = { type: "create_tournament", name: read("name").trim(), game: read("game"), kind: read("kind"), starts_at: Number.isFinite(starts) ? starts : Date.now() / 1000, level: read("level") };
          if (msg.kind === "arena") msg.duration = Number(read("minutes")) * 60;
          else msg.rounds = Number(read("rounds"));
          if (read("turn_timer")) msg.turn_timer = Number(read("turn_timer"));
          make(msg, "tournaments", "tournaments", (made) => {
            toast(t("tournaments.created", { name: made.name }));
            if (app.tournaments) showTournament(made.id);
            if (app.tournaments) listTournaments();
          });
        },
      },
    },
    h("h3", {}, t("tournaments.create_title")),
    h("label", { class: "option" }, t("tournaments.name"), " ", h("input", { name: "name", id: "tourney-name", maxlength: 64, required: true })),
    h("label", { class: "option" }, t("profile.game"), " ", h("select", { name: "game", id: "tourney-game" }, gameOptions(app.games.map((g) => g.id), "scopa"))),
    h("label", { class: "option" }, t("tournaments.kind"), " ", kind),
    h("label", { class: "option" }, t("tournaments.start"), " ", h("input", { type: "datetime-local", name: "starts", id: "tourney-start", step: 1, required: true, value: localInput(new Date(Date.now() + 10 * 60 * 1000)) })),
    rounds,
    minutes,
    h("label", { class: "option" }, t("turn_timer"), " ", h("input", { type: "number", name: "turn_timer", id: "tourney-timer", min: 5, max: 600, placeholder: "—" })),
    h("label", { class: "option" }, t("ai_level"), " ", h("select", { name: "level", id: "tourney-level" }, levels.map((l) => h("option", { value: l, selected: l === "normal" }, tOr("levels." + l, l))))),
    h("div", { class: "buttons" }, h("button", { type: "submit", id: "tourney-create" }, t("tournaments.create"))),
  );
  return form;
}

function tournamentsView() {
  return pageView("tournaments", toLobby, t("tournaments.title"), tournamentDetailView(), tournamentListView(), createTournamentView());
}

// ---------------------------------------------------------------- a tournament's call
// The round's table is pushed: "tournament_table", then "joined" and the table's view.
// On the tournaments page the table opens; elsewhere (the lobby, another page, a table)
// its messages wait behind a banner until the player goes there (a seat cannot be
// joined twice: the page keeps what it was sent instead of asking again).
const CALL_HELD = new Set(["joined", "snapshot", "update", "game_over", "chat", "table", "hint"]);

function onTournamentTable(msg) {
  if (!msg.table || (msg.ref !== null && msg.ref !== undefined)) return;
  if (app.table && app.table.info.id === msg.table) return;
  const auto = Boolean(app.tournaments) && !app.table;
  app.call = { tournament: msg.tournament, round: msg.round, table: msg.table, seat: msg.seat, auto, info: null, held: [] };
  if (!auto) render(true);
}

/** Whether ``msg`` is for the called table the player has not gone to yet (kept). */
function holdForCall(msg) {
  const call = app.call;
  if (!call || call.auto || !CALL_HELD.has(msg.type)) return false;
  const id = msg.table && typeof msg.table === "object" ? msg.table.id : msg.table;
  if (id !== call.table || (app.table && app.table.info.id === call.table)) return false;
  if (msg.type === "joined") {
    call.info = msg.table;
    call.seat = msg.seat;
  } else call.held.push(msg);
  return true;
}

/** Go to the called table: shown with everything it was sent meanwhile. */
function goToCall() {
  const call = app.call;
  app.call = null;
  const old = app.table;
  if (old && old.info.id !== call.table && old.result) send({ type: "leave", table: old.info.id }, () => {});
  if (!call.info) {
    app.call = { ...call, auto: true }; // its "joined" is on the way: it opens the table
    return;
  }
  app.table = null;
  openTable(call.info, call.seat, null);
  for (const msg of call.held) receive(msg);
}

/** Go to my table ``tableId`` (the answer to next_tournament_table). */
function goToTable(tableId, seat) {
  if (app.call && app.call.table === tableId) goToCall();
  else send({ type: "join_table", table: tableId, seat });
}

function callView() {
  const call = app.call;
  const name = tournamentName(call.tournament);
  return h(
    "section",
    { class: "tourney-call", role: "alert", data: { table: call.table } },
    h("strong", {}, t("tournaments.call", { round: call.round, name })),
    " ",
    h("button", { type: "button", id: "go-call", on: { click: goToCall } }, t("tournaments.go")),
  );
}

function tournamentName(id) {
  const list = (app.tournaments && app.tournaments.list) || [];
  const found = list.find((x) => x.id === id);
  return found ? found.name : id;
}

// ---------------------------------------------------------------- team matches (issue 56)
// Team duplicate matches (docs/duplicate.md, Team matches): two teams play the same
// boards at the layout's tables, each member at one table for every board. The page
// lists the public matches, makes one, joins a team's slot (or the first free), leaves
// and starts it; a private match is joined by its invite link (#team=MATCH). Once it
// plays, the server pushes "team_match_table" when a member's next table is ready:
// on this page the table is asked for at once, elsewhere a banner offers it. The
// board-by-board table refreshes while the match plays; a board's other tables and
// their replays show once the member's own table played it (board_not_played before:
// said in words, no card).
const TEAM_TABLE = /^(M[0-9a-f]+)-b(\d+)-t(\d+)$/; // a match table's id: MATCH-bBOARD-tTABLE
const TEAM_GAMES = ["scopa", "cicera", "doudizhu", "schafkopf"]; // the games with a team layout
const TEAM_RETRY = new Set(["game_in_progress", "table_moving", "not_found"]); // asked again
const TEAM_TRIES = 20;
const TEAM_PAUSE_MS = 500;

/** The match a table of a team match belongs to, or null. */
function teamMatchOf(tableId) {
  const m = TEAM_TABLE.exec(tableId || "");
  return m ? m[1] : null;
}

/** Show the team matches page (with ``matchId``: that match opened; ``join``: joined
 * at its first free slot, as an invite link asks). */
function openTeams(matchId = null, join = false) {
  app.teams = { list: null, shown: null, match: null, board: null, replay: null, join: null };
  closePages("teams");
  listTeamMatches();
  if (matchId) showTeamMatch(matchId);
  if (matchId && join) {
    if (app.account) joinTeam(matchId, null, null);
    else app.teams.join = matchId; // joined once the player logs in
  }
  render(true);
}

function listTeamMatches() {
  const shown = app.teams;
  send({ type: "list_team_matches" }, (reply) => {
    if (app.teams !== shown) return;
    if (reply.type === "team_matches") shown.list = reply.matches;
    else toast(errorMessage(S, reply));
    if (!app.table) redraw("team-list", teamListView);
  });
}

function showTeamMatch(id) {
  const shown = app.teams;
  if (shown.shown !== id) {
    shown.match = null;
    shown.board = null;
    shown.replay = null;
  }
  shown.shown = id;
  loadTeamMatch();
  render(true);
}

/** The shown match as the server lets me see it (rosters, boards, IMPs, my place). */
function loadTeamMatch() {
  const shown = app.teams;
  const id = shown.shown;
  send({ type: "team_match", match_id: id }, (reply) => {
    if (app.teams !== shown || shown.shown !== id) return;
    if (reply.type === "team_match") shown.match = reply.match;
    else shown.match = { refused: reply };
    if (!app.table) redraw("team-match", teamMatchView);
  });
}

/** A roster request (create, join, leave, start): the answer is the match, shown. */
function teamRequest(msg, onMatch) {
  send(msg, (reply) => {
    if (reply.type !== "team_match") {
      toast(errorMessage(S, reply));
      return;
    }
    if (onMatch) onMatch(reply.match);
    if (!app.teams) return;
    app.teams.shown = reply.match.match_id;
    app.teams.match = reply.match;
    listTeamMatches();
    if (!app.table) render(true);
  });
}

function joinTeam(matchId, team, slot) {
  const msg = { type: "join_team_match", match_id: matchId };
  if (team) msg.team = team;
  if (slot !== null && slot !== undefined) msg.slot = slot;
  teamRequest(msg, () => toast(t("teams.joined", { id: matchId })));
}

/** Sit at my table of my next board: the server seats me ("joined" opens the table);
 * a board still being stored or a table being made elsewhere is asked again. */
function playTeamMatch(matchId, tries = TEAM_TRIES) {
  send({ type: "play_team_match", match_id: matchId }, (reply) => {
    if (reply.type !== "error") return;
    if (TEAM_RETRY.has(reply.code) && tries > 1) setTimeout(() => playTeamMatch(matchId, tries - 1), TEAM_PAUSE_MS);
    else if (reply.code === "board_out_of_order") toast(t("teams.all_played"));
    else toast(errorMessage(S, reply));
  });
}

/** The server's notice: my next table of a match is ready (``board`` null: the match
 * is over). On the team page it is asked for at once; anywhere else a banner waits. */
function onTeamMatchTable(msg) {
  if (msg.board === null || msg.board === undefined) {
    if (app.teamCall && app.teamCall.match_id === msg.match_id) app.teamCall = null;
    if (app.teams && app.teams.shown === msg.match_id) loadTeamMatch();
    if (!app.table) render(true);
    return;
  }
  if (app.teams && !app.table) {
    app.teamCall = null;
    if (!app.teams.shown) app.teams.shown = msg.match_id;
    playTeamMatch(msg.match_id);
    return;
  }
  app.teamCall = { match_id: msg.match_id, board: msg.board };
  render(true);
}

/** Go to the table the banner offers (a finished table shown is left first). */
function goToTeamCall() {
  const call = app.teamCall;
  app.teamCall = null;
  const old = app.table;
  if (old && old.result) send({ type: "leave", table: old.info.id }, () => {});
  playTeamMatch(call.match_id);
  render(true);
}

function teamCallView() {
  const call = app.teamCall;
  return h(
    "section",
    { class: "team-call", role: "alert", data: { match: call.match_id, board: call.board } },
    h("strong", {}, t("teams.call", { board: call.board, id: call.match_id })),
    " ",
    h("button", { type: "button", id: "go-team-call", on: { click: goToTeamCall } }, t("teams.go")),
  );
}

/** Ask for board ``n`` of the shown match: every table's result and the other tables'
 * replays, or the server's refusal (my table has not played it yet) in words. */
function showTeamBoard(n) {
  const shown = app.teams;
  const id = shown.shown;
  shown.board = { board: n, data: null, refused: null };
  shown.replay = null;
  send({ type: "team_match_board", match_id: id, board: n }, (reply) => {
    if (app.teams !== shown || shown.shown !== id || !shown.board || shown.board.board !== n) return;
    if (reply.type === "team_match_board") shown.board.data = reply;
    else shown.board.refused = reply;
    if (!app.table) render(true);
  });
  render(true);
}

function teamStatusText(status) {
  return tOr("teams.statuses." + status, status);
}

function inviteUrl(matchId) {
  return `${location.origin}${location.pathname}#team=${matchId}`;
}

/** The public matches forming or playing: game, status, boards, AI level, players. */
function teamListView() {
  const shown = app.teams;
  const list = shown.list;
  let body;
  if (list === null) body = h("p", {}, t("profile.loading"));
  else if (!list.length) body = h("p", { class: "empty" }, t("teams.none"));
  else
    body = h(
      "ul",
      { class: "team-rows" },
      list.map((m) =>
        h(
          "li",
          { class: "team-row" + (m.match_id === shown.shown ? " open" : ""), data: { match: m.match_id, status: m.status } },
          h("strong", {}, gameTitle(m.game)),
          " ",
          h("span", { class: "status status-" + m.status }, teamStatusText(m.status)),
          " ",
          h("span", {}, t("teams.line", { boards: m.boards, level: tOr("levels." + m.level, m.level), players: m.roster.length, places: 2 * m.team_size })),
          m.my_team ? h("span", { class: "badge mine" }, t("teams.mine")) : null,
          " ",
          h("button", { type: "button", class: "open-match", data: { focus: "open-" + m.match_id }, "aria-pressed": String(m.match_id === shown.shown), on: { click: () => showTeamMatch(m.match_id) } }, t("teams.open_match")),
          app.account && m.status === "forming" && !m.my_team && m.roster.length < 2 * m.team_size
            ? h("button", { type: "button", class: "join-match", data: { focus: "join-" + m.match_id }, on: { click: () => joinTeam(m.match_id, null, null) } }, t("teams.join"))
            : null,
        ),
      ),
    );
  return h("section", { id: "team-list", class: "team-list" }, h("h2", {}, t("teams.list")), body);
}

/** The form for a match (logged in): game, boards, the AI seats' level, private, and
 * whether it starts by itself once both teams are full. */
function createTeamView() {
  const games = app.games.filter((g) => TEAM_GAMES.includes(g.id));
  if (!app.account) return loginToPlay("teams.login_to_play");
  if (!games.length) return null;
  const levelSelect = h("select", { name: "level", id: "team-level" });
  const fillLevels = (id) => {
    const game = games.find((g) => g.id === id) || games[0];
    levelSelect.replaceChildren(...(game.levels || []).filter((l) => l !== "random").map((l) => h("option", { value: l, selected: l === "normal" }, tOr("levels." + l, l))));
  };
  const gameSelect = h("select", { name: "game", id: "team-game", on: { change: (ev) => fillLevels(ev.target.value) } }, gameOptions(games.map((g) => g.id), games[0].id));
  fillLevels(games[0].id);
  const priv = h("input", { type: "checkbox", name: "private", id: "team-private" });
  const auto = h("input", { type: "checkbox", name: "auto_start", id: "team-auto", checked: true });
  const form = h(
    "form",
    {
      class: "team-create",
      on: {
        submit: (ev) => {
          ev.preventDefault();
          if (!form.reportValidity()) return;
          const msg = { type: "create_team_match", game: formValue(form, "game"), boards: Number(formValue(form, "boards")), level: formValue(form, "level"), private: priv.checked, auto_start: auto.checked };
          teamRequest(msg, (made) => toast(t("teams.created", { id: made.match_id })));
        },
      },
    },
    h("h3", {}, t("teams.create_title")),
    h("label", { class: "option" }, t("profile.game"), " ", gameSelect),
    h("label", { class: "option" }, t("duplicate.boards"), " ", h("input", { type: "number", name: "boards", id: "team-boards", min: 1, max: 32, value: 4, required: true })),
    h("label", { class: "option" }, t("ai_level"), " ", levelSelect),
    h("label", { class: "option" }, priv, " ", t("private")),
    h("label", { class: "option" }, auto, " ", t("teams.auto_start")),
    h("div", { class: "buttons" }, h("button", { type: "submit", id: "team-create" }, t("teams.create"))),
  );
  return form;
}

/** A team's roster: each slot's member, or a button that takes the free slot. */
function rosterView(m, team) {
  const open = app.account && m.status === "forming";
  return h(
    "div",
    { class: "team-roster", data: { team } },
    h("h4", {}, t("teams.team", { team: team.toUpperCase() }), " ", h("span", { class: "team-imps" }, t("teams.imps_n", { n: team === "a" ? m.imps_a : m.imps_b }))),
    h(
      "ol",
      { start: 0 },
      Array.from({ length: m.team_size }, (_, slot) => {
        const member = m.roster.find((p) => p.team === team && p.slot === slot);
        const mine = m.my_team === team && m.my_slot === slot;
        return h(
          "li",
          { class: "team-slot" + (mine ? " me" : ""), data: { team, slot, name: member ? member.name : "" } },
          member ? h("span", { class: "name" }, member.name) : h("span", { class: "free" }, t("teams.free")),
          !member && open ? h("button", { type: "button", class: "take-slot", data: { focus: `take-${team}-${slot}` }, "aria-label": t("teams.take_label", { team: team.toUpperCase(), slot }), on: { click: () => joinTeam(m.match_id, team, slot) } }, t("teams.take")) : null,
        );
      }),
    ),
  );
}

/** A table's cell of a board: each team's total there when I may see it, else whether
 * it is played. */
function teamCell(cell) {
  if (cell.a_total !== null && cell.a_total !== undefined) return `A ${signed(cell.a_total, 0)} · B ${signed(cell.b_total, 0)}`;
  return cell.done ? t("teams.done") : t("teams.playing");
}

/** The board-by-board table: each table's result, the board's net and IMPs, the total. */
function teamBoardsView(m) {
  if (!m.results.length) return null;
  const tables = Array.from({ length: m.tables }, (_, i) => i);
  const dash = (v) => (v === null || v === undefined ? "–" : signed(v, 0));
  return h(
    "table",
    { class: "team-boards" },
    h("tr", {}, h("th", {}, t("teams.board")), tables.map((i) => h("th", {}, t("teams.table_n", { n: i + 1 }))), h("th", {}, t("teams.net")), h("th", {}, t("duplicate.imps")), h("th", {}, "")),
    m.results.map((line) =>
      h(
        "tr",
        { class: "team-board-line", data: { board: line.board, imps: line.imps === null || line.imps === undefined ? "" : line.imps } },
        h("td", {}, line.board),
        tables.map((i) => {
          const cell = line.tables.find((c) => c.table === i) || { table: i, done: false };
          return h("td", { class: "team-table" + (m.my_table === i ? " mine" : ""), data: { table: i, done: String(Boolean(cell.done)) } }, teamCell(cell));
        }),
        h("td", { class: "net" }, dash(line.net)),
        h("td", { class: "imps" }, dash(line.imps)),
        h("td", {}, h("button", { type: "button", class: "team-board-button", data: { board: line.board, focus: "board-" + line.board }, "aria-pressed": String(Boolean(app.teams.board && app.teams.board.board === line.board)), on: { click: () => showTeamBoard(line.board) } }, t("teams.see_board"))),
      ),
    ),
    h("tr", { class: "team-total" }, h("th", { colspan: m.tables + 2 }, t("teams.total")), h("td", { class: "total", colspan: 2 }, `A ${m.imps_a} – B ${m.imps_b}`)),
  );
}

/** A board of the match: every table's totals and a replay button per other table; or
 * the server's refusal, in words. */
function teamBoardView(shown) {
  const head = h("h3", {}, t("duplicate.board_title", { n: shown.board }));
  if (shown.refused) return h("section", { class: "team-board-view refused", data: { board: shown.board, code: shown.refused.code || "" } }, head, h("p", { class: "refusal", role: "status" }, errorMessage(S, shown.refused)));
  if (!shown.data) return h("section", { class: "team-board-view", data: { board: shown.board } }, head, h("p", {}, t("profile.loading")));
  const line = shown.data.line;
  const names = (replay) => replay.seats.map((s) => seatName(s)).join(" – ");
  return h(
    "section",
    { class: "team-board-view", data: { board: shown.board } },
    head,
    h("ul", { class: "team-board-tables" }, line.tables.map((c) => h("li", { data: { table: c.table } }, t("teams.table_n", { n: c.table + 1 }), ": ", teamCell(c)))),
    line.imps !== null && line.imps !== undefined ? h("p", { class: "team-net" }, t("teams.net_line", { net: signed(line.net, 0), imps: signed(line.imps, 0) })) : null,
    h(
      "div",
      { class: "buttons team-replays" },
      shown.data.replays.map((r) => {
        const m = TEAM_TABLE.exec(r.table);
        const n = m ? Number(m[3]) + 1 : "?";
        return h("button", { type: "button", class: "replay-button", data: { table: r.table, focus: "replay-" + r.table }, on: { click: () => openReplay(r, t("teams.table_of", { n, names: names(r) }), app.teams) } }, t("teams.replay_table", { n }));
      }),
    ),
  );
}

/** The shown match: status and score, invite link, rosters, my place and actions, the
 * boards, and a board's other tables when asked for. */
function teamMatchView() {
  const shown = app.teams;
  if (!shown.shown) return h("section", { id: "team-match", hidden: true });
  const m = shown.match;
  if (!m) return h("section", { id: "team-match", class: "team-match", data: { match: shown.shown } }, h("p", {}, t("profile.loading")));
  if (m.refused) return h("section", { id: "team-match", class: "team-match refused", data: { match: shown.shown } }, h("p", { class: "refusal", role: "status" }, errorMessage(S, m.refused)));
  const me = app.account ? app.account.name.toLowerCase() : null;
  const member = m.my_team !== null && m.my_team !== undefined;
  const full = m.roster.length >= 2 * m.team_size;
  const button = (id, key, onClick) => h("button", { type: "button", id, data: { focus: id }, on: { click: onClick } }, t(key));
  const actions = [];
  if (m.status === "forming" && member) actions.push(button("team-leave", "teams.leave", () => teamRequest({ type: "leave_team_match", match_id: m.match_id })));
  if (m.status === "forming" && app.account && !member && !full) actions.push(button("team-join", "teams.join", () => joinTeam(m.match_id, null, null)));
  if (m.status === "forming" && me !== null && (m.creator || "").toLowerCase() === me && full) actions.push(button("team-start", "teams.start", () => teamRequest({ type: "start_team_match", match_id: m.match_id })));
  if (m.status === "playing" && member && m.next_board !== null && m.next_board !== undefined) actions.push(h("button", { type: "button", id: "team-play", data: { focus: "team-play" }, on: { click: () => playTeamMatch(m.match_id) } }, t("teams.play", { n: m.next_board })));
  return h(
    "section",
    { id: "team-match", class: "team-match", data: { match: m.match_id, status: m.status } },
    h("h2", {}, t("teams.match_title", { game: gameTitle(m.game), status: teamStatusText(m.status) })),
    h("p", { class: "team-score", role: "status" }, t("teams.score", { a: m.imps_a, b: m.imps_b }), " · ", t("teams.line", { boards: m.boards, level: tOr("levels." + m.level, m.level), players: m.roster.length, places: 2 * m.team_size })),
    m.status === "forming" ? h("p", { class: "team-invite" }, h("label", {}, t("invite_link"), " ", h("input", { readonly: true, class: "invite-link", id: "team-invite", value: inviteUrl(m.match_id) }))) : null,
    h("div", { class: "team-rosters" }, rosterView(m, "a"), rosterView(m, "b")),
    member ? h("p", { class: "team-you" }, t("teams.you", { team: m.my_team.toUpperCase(), table: (m.my_table || 0) + 1 }), m.status === "playing" && (m.next_board === null || m.next_board === undefined) ? " " + t("teams.all_played") : "") : null,
    actions.length ? h("div", { class: "buttons" }, actions) : null,
    teamBoardsView(m),
    shown.board ? teamBoardView(shown.board) : null,
    shown.replay ? replayView(shown.replay) : null,
  );
}

function teamsView() {
  return pageView("teams", toLobby, t("teams.title"), h("p", { class: "note" }, t("teams.about")), teamMatchView(), teamListView(), createTeamView());
}

/** Back to the lobby from a page over it (its list of tables asked afresh). */
function toLobby() {
  closePages(null);
  render(true);
  listTables();
}

/** The pages over the lobby are one at a time: opening ``keep`` closes the others. */
function closePages(keep) {
  if (keep !== "duplicate") app.duplicate = null;
  if (keep !== "tournaments") app.tournaments = null;
  if (keep !== "teams") app.teams = null;
  app.profile = null;
  app.leaderboard = null;
}

// the duplicate set's standings and the tournaments refresh while their page shows
setInterval(() => {
  if (!app.welcome || app.table || document.visibilityState !== "visible") return;
  if (app.duplicate && app.duplicate.set) loadStandings();
  if (app.tournaments) {
    listTournaments();
    if (app.tournaments.shown) loadTournament();
  }
  if (app.teams) {
    listTeamMatches();
    if (app.teams.shown && !(app.teams.match && app.teams.match.status === "finished")) loadTeamMatch();
  }
}, 3000);

function openTable(info, seat, invite) {
  const same = app.table && app.table.info.id === info.id;
  app.table = {
    info,
    seat,
    invite: invite || (same ? app.table.invite : null),
    view: same ? app.table.view : null,
    version: same ? app.table.version : 0,
    timer: null,
    result: same ? app.table.result : null,
    chat: same ? app.table.chat : [],
    last: same ? app.table.last : null,
    dealScore: same ? app.table.dealScore : null,
    recent: same ? app.table.recent : {},
    rating: same ? app.table.rating : null, // rated tables: the rating the current game changes
  };
  const params = new URLSearchParams({ table: info.id });
  if (app.table.invite) params.set("invite", app.table.invite);
  history.replaceState(null, "", "#" + params.toString());
  tab.setItem(SHOWN_KEY, info.id);
  quickStarted(info);
  app.selected.clear();
  app.choice = null;
  render();
}

function closeTable() {
  const from = app.table ? app.table.info.id : null;
  app.table = null;
  app.hint = null;
  tab.removeItem(QUICK_KEY);
  tab.removeItem(SHOWN_KEY);
  yourTurn(false, t("your_turn"), t("title"));
  history.replaceState(null, "", location.pathname);
  listTables();
  const board = from && dupBoardOf(from);
  if (board && !app.tournaments) openDuplicate(board.set_id); // back where the board was chosen
  else if (teamMatchOf(from) && !app.tournaments && !app.teams) openTeams(teamMatchOf(from));
  else render(true);
}

function onView(msg) {
  if (!app.table || app.table.info.id !== msg.table) {
    // a snapshot for a table we are at (after a reload): show it
    const info = app.tables.find((x) => x.id === msg.table) || { id: msg.table, game: msg.view.game || "", title: "", seats: [], status: "playing", options: {} };
    openTable(info, msg.seat, null);
  }
  const table = app.table;
  // view_changes: an update carries the fields that changed since the last view of this game
  const merge = msg.type === "update" && table.view && msg.game_no === table.gameNo;
  if (msg.game_no !== table.gameNo) table.result = null;
  table.gameNo = msg.game_no;
  if (table.info.rated && typeof msg.seat === "number" && (!table.rating || table.rating.gameNo !== msg.game_no)) ratingBefore(table, msg.game_no);
  table.seat = msg.seat;
  table.view = merge ? { ...table.view, ...msg.view } : msg.view;
  table.version = msg.version;
  table.timer = msg.timer_s === null || msg.timer_s === undefined ? null : Date.now() + msg.timer_s * 1000;
  if (msg.type === "update" && msg.actor !== null && msg.actor !== undefined) {
    table.last = { seat: msg.actor, by: msg.by, events: msg.events };
  }
  noteMoves(table, msg);
  for (const event of msg.events || []) {
    if (event.kind === "deal_scored" || event.kind === "deal_over") table.dealScore = event.data;
  }
  if (selectsFirst()) {
    const hand = new Set(table.view.hand || []); // Dou Dizhu: a selection made while waiting stays
    for (const code of [...app.selected]) if (!hand.has(code)) app.selected.delete(code);
  } else app.selected.clear();
  app.choice = null;
  if (app.hint && app.hint.version !== table.version) app.hint = null;
  render();
  yourTurn(isMyTurn(), t("your_turn"), t("title"));
}

// ---------------------------------------------------------------- a rated game's change
// The server rates a game with its record, written after the game ends, so game_over
// does not carry the new rating: the page counts the player's rated games when a game
// starts and, once it is over, asks for its own profile until one more counts (as the
// terminal does, client_cli/rated_game.py).
const RATING_TRIES = 20;
const RATING_PAUSE_MS = 500;

/** The player's own rating at ``game`` (null: none yet) to ``onRating``; nothing when
 * the request fails (the line is a courtesy). */
function ownRating(game, onRating) {
  send({ type: "profile" }, (reply) => {
    if (reply.type === "profile") onRating((reply.ratings || []).find((r) => r.game === game) || null);
  });
}

/** A game starts at a rated table: count the rated games the player has (at least the
 * last game's too: after a rematch its record may not be written yet). */
function ratingBefore(table, gameNo) {
  const last = table.rating;
  const atLeast = last && last.before !== null ? last.before + 1 : 0;
  const rating = { gameNo, game: table.info.game, before: null, after: null };
  table.rating = rating;
  ownRating(rating.game, (r) => (rating.before = Math.max(r ? r.games : 0, atLeast)));
}

/** The game is over: the new rating once the server counts the game (shown with the result). */
function ratingAfter(rating, tries = RATING_TRIES) {
  if (rating.before === null || tries <= 0) return;
  ownRating(rating.game, (r) => {
    if (!app.table || app.table.rating !== rating) return; // another game, or the table left
    if (r && r.games > rating.before) {
      rating.after = r;
      render();
    } else setTimeout(() => ratingAfter(rating, tries - 1), RATING_PAUSE_MS);
  });
}

/** Whether the page's seat has a move now. */
function isMyTurn() {
  const table = app.table;
  return Boolean(table && table.view && !table.view.over && typeof table.seat === "number" && (table.view.to_act || []).includes(table.seat) && legal().length);
}

/** Dou Dizhu: a click always selects a card, and playing is the one explicit act of the
 * Play button (several cards make most plays there; a click never plays at once). */
function selectsFirst() {
  return Boolean(app.table && app.table.info.game === "doudizhu");
}

// ---------------------------------------------------------------- what the others just did
const JUST_MS = 2500; // how long a seat's latest move stays highlighted

function contractLabel(kind, suit) {
  const name = termOf(kind);
  if (!suit) return name;
  return `${name} · ${kind === "rufer" ? cardName("A" + suit, S, pattern()) : suitName(String(suit), S, pattern())}`; // Rufer names the called ace
}

/** A seat's move from one of its events: the cards it played and took, or its call. */
function moveOf(kind, data) {
  const played = typeof data.card === "string" ? [data.card] : Array.isArray(data.cards) ? data.cards : [];
  const move = { kind, text: "", cards: [], captured: [], extra: "" };
  if (kind === "play") {
    move.cards = played;
    move.captured = Array.isArray(data.captured) ? data.captured : [];
    if (data.scopa) move.extra = termOf("scopa");
    else if (Array.isArray(data.bonuses) && data.bonuses.length) move.extra = data.bonuses.map((b) => termOf(b)).join(", ");
    else if (data.combo && played.length > 1) move.extra = termOf(data.combo);
  } else if (kind === "pass" || (kind === "bid" && (data.contract === null || data.bid === 0))) {
    move.kind = "pass";
    move.text = t("action.pass");
  } else if (kind === "bid" && typeof data.bid === "number") {
    move.text = t("action.bid", { value: data.bid });
  } else if (kind === "bid" && data.contract) {
    move.text = contractLabel(data.contract, data.suit);
  } else return null;
  return move;
}

/** Remember each seat's latest move from an update's events (a new deal or game starts afresh). */
function noteMoves(table, msg) {
  if (msg.type !== "update") return;
  if (msg.actor === null || msg.actor === undefined) table.recent = {};
  for (const event of msg.events || []) {
    if (event.kind === "deal" || event.kind === "redeal") table.recent = {};
    const data = event.data || {};
    if (typeof data.seat !== "number") continue;
    // kept as the event itself: its words are made at each drawing, in the language shown then
    if (moveOf(event.kind, data)) table.recent[data.seat] = { kind: event.kind, data, at: Date.now(), version: msg.version };
  }
}

/** A seat's latest move beside its name; highlighted (animated unless the reader asked for
 * reduced motion) for a moment after it happened. */
function seatMove(recent) {
  if (!recent) return null;
  const move = moveOf(recent.kind, recent.data);
  if (!move) return null;
  const age = Date.now() - recent.at;
  const node = h(
    "span",
    { class: "seat-move" + (age < JUST_MS ? " just" : ""), data: { kind: move.kind, version: recent.version } },
    move.text ? h("span", { class: "move-text" }, move.text) : null,
    move.cards.length ? cards(move.cards, { small: true, cls: "played" }) : null,
    move.captured.length ? [h("span", { class: "move-text" }, t("takes")), cards(move.captured, { small: true, cls: "taken" })] : null,
    move.extra ? h("span", { class: "move-extra" }, move.extra) : null,
  );
  if (age < JUST_MS) node.style.animationDelay = `-${age}ms`; // re-renders continue the highlight
  node.setAttribute("aria-label", moveWords(move));
  return node;
}

/** A move in words: the cards by name and what they took, or the call. */
function moveWords(move) {
  const names = (list) => list.map((c) => cardName(c, S, pattern())).join(", ");
  const words = [move.text, names(move.cards)].filter(Boolean);
  if (move.captured.length) words.push(t("takes"), names(move.captured));
  if (move.extra) words.push(`· ${move.extra}`);
  return words.join(" ");
}

/** A seat's role in the deal: Dou Dizhu's landlord, Schafkopf's declarer with the contract
 * and the partner once known, Cicera's team (partners sit opposite). */
function seatRole(view, seat) {
  if (!view) return null;
  const me = app.table.seat;
  if (view.landlord === seat) return h("span", { class: "role" }, termOf("landlord"));
  if (view.contract && typeof view.contract === "object" && view.contract.declarer === seat) return h("span", { class: "role" }, contractLabel(view.contract.kind, view.contract.suit));
  if (typeof view.partner === "number" && view.partner === seat) return h("span", { class: "role" }, t("partner"));
  if (app.table.info.game === "cicera" && Array.isArray(view.hand_counts)) {
    const n = view.hand_counts.length;
    const team = t("team", { n: (seat % 2) + 1 });
    const partner = typeof me === "number" && seat !== me && seat % 2 === me % 2 ? ` · ${t("partner")}` : "";
    return h("span", { class: "role team team-" + (seat % 2), data: { team: seat % 2 } }, team + (n === 4 ? partner : ""));
  }
  return null;
}

// ---------------------------------------------------------------- actions
function cardsOf(action) {
  if (typeof action.card === "string") return [action.card];
  if (Array.isArray(action.cards)) return action.cards;
  return [];
}

function rankKey(cards) {
  return cards.map((c) => c[0] + (c[1] === "J" ? "J" : "")).sort().join(",");
}

function act(action) {
  const table = app.table;
  if (!table || table.seat === null) return;
  app.choice = null;
  app.hint = null;
  app.selected.clear();
  send({ type: "act", table: table.info.id, seat: table.seat, version: table.version, action });
  render();
}

function legal() {
  const table = app.table;
  return (table && table.view && table.view.legal) || [];
}

function clickCard(code) {
  if (selectsFirst()) {
    if (app.selected.has(code)) app.selected.delete(code);
    else app.selected.add(code);
    render();
    return;
  }
  const moves = legal().filter((a) => cardsOf(a).length > 0);
  const single = moves.filter((a) => cardsOf(a).length === 1 && cardsOf(a)[0] === code);
  const multi = moves.some((a) => cardsOf(a).length > 1);
  if (!multi) {
    if (single.length === 1) act(single[0]);
    else if (single.length > 1) {
      app.choice = { card: code, moves: single };
      render();
    }
    return;
  }
  if (app.selected.has(code)) app.selected.delete(code);
  else app.selected.add(code);
  render();
}

function selectedMove() {
  const chosen = [...app.selected];
  if (chosen.length === 0) return null;
  const exact = legal().find((a) => {
    const cards = cardsOf(a);
    return cards.length === chosen.length && cards.every((c) => app.selected.has(c));
  });
  if (exact) return exact;
  // Dou Dizhu: the same ranks in other suits are the same play (docs/protocol.md)
  if (app.table.info.game === "doudizhu") {
    const found = legal().find((a) => cardsOf(a).length === chosen.length && rankKey(cardsOf(a)) === rankKey(chosen));
    if (found) return { ...found, cards: chosen };
  }
  return null;
}

function actionLabel(action) {
  const kind = action.type || "action";
  if (typeof action.contract === "string") return `${t("action." + kind)} ${contractLabel(action.contract, action.suit)}`;
  let label = t("action." + kind, action);
  if (label === "action." + kind) label = kind.replaceAll("_", " ");
  const extra = Object.entries(action)
    .filter(([k, v]) => k !== "type" && k !== "card" && k !== "cards" && !(kind === "bid" && k === "value") && v !== null && typeof v !== "object")
    .map(([k, v]) => (k === "suit" ? suitName(String(v), S, pattern()) : termOf(v)));
  return [label, ...extra].join(" ");
}

/** A game term of the table's game (terms.<game>.<id>), else the id with spaces. */
function termOf(id) {
  return term(S, app.table ? app.table.info.game : app.shownGame ? app.shownGame.game : "", id);
}

/** The name of a view or scoring field: fields.<key>, else a game term. */
function fieldName(key) {
  return tOr("fields." + key, termOf(key));
}

/** A scalar value shown in a table: yes/no, a suit's name, a game term, a number. */
function valueText(key, value) {
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  if (key === "suit" && typeof value === "string") return suitName(value, S, pattern());
  return typeof value === "string" ? termOf(value) : String(value);
}

/** A view field in the game's terms (the contract, the bids, the phase); undefined
 * for the other fields. */
function fieldText(key, value) {
  const seats = app.table.info.seats;
  const who = (b) => (b.seat === undefined || b.seat === null ? "" : (seats[b.seat] ? seatName(seats[b.seat]) : t("seat", { n: b.seat })) + ": ");
  if (key === "phase" && typeof value === "string" && tOr("phases." + value, null) !== null) return t("phases." + value);
  if (key === "contract" && value && typeof value === "object") return who({ seat: value.declarer }) + bidText(S, app.table.info.game, pattern(), value);
  if ((key === "bids" || key === "auction") && Array.isArray(value)) return value.map((b) => who(b) + bidText(S, app.table.info.game, pattern(), b)).join(" · ");
  return undefined;
}

// ---------------------------------------------------------------- the rules
/** The button that shows (or hides) the rules of ``game``, as `cardavia rules GAME` prints them. */
function rulesButton(game) {
  const open = Boolean(app.rules && app.rules.game === game);
  const button = h("button", { type: "button", class: "rules-button", "aria-expanded": String(open), data: { game } }, t("rules"));
  button.onclick = () => (app.rules && app.rules.game === game ? closeRules() : showRules(game));
  return button;
}

/** Fetch the rules of ``game`` in the page's language (English where none is
 * translated: the server says which in Content-Language) and show them. */
async function showRules(game) {
  const wanted = lang;
  app.rules = { game, lang: wanted, nodes: null, shown: wanted };
  drawRules();
  let nodes;
  let shown = "en";
  try {
    const reply = await fetch(`/rules/${wanted}/${game}.md`);
    if (!reply.ok) throw new Error(`rules of ${game}: HTTP ${reply.status}`);
    shown = reply.headers.get("Content-Language") || "en";
    nodes = renderMarkdown(await reply.text());
  } catch (err) {
    console.warn(err);
    nodes = null;
  }
  if (!app.rules || app.rules.game !== game || app.rules.lang !== wanted) return; // closed or replaced meanwhile
  app.rules = { game, lang: wanted, nodes: nodes || false, shown };
  drawRules();
}

function closeRules() {
  app.rules = null;
  drawRules();
}

/** Draw the rules beside the lobby or table (#rules, apart from #main: the table's
 * updates redraw #main, never the rules being read) and the buttons' state. */
function drawRules() {
  const box = document.getElementById("rules");
  box.replaceChildren(...[rulesView()].filter(Boolean));
  const game = app.rules && app.rules.game;
  for (const button of document.querySelectorAll(".rules-button")) {
    const open = button.dataset.game === game; // the buttons decide on click from app.rules
    button.setAttribute("aria-expanded", String(open));
  }
}

/** The rules section (none unless the player opened it). */
function rulesView() {
  const rules = app.rules;
  if (!rules) return null;
  const body = rules.nodes === null ? [h("p", {}, t("rules_loading"))] : rules.nodes === false ? [h("p", {}, t("rules_failed"))] : [rules.nodes.cloneNode(true)]; // kept whole for the next drawing
  const note = rules.nodes && rules.shown !== lang ? h("p", { class: "rules-note" }, t("rules_in_english")) : null;
  return h(
    "section",
    { class: "rules", lang: rules.shown, data: { game: rules.game } },
    h("div", { class: "rules-head" }, h("h2", {}, t("rules")), h("button", { type: "button", class: "rules-close", on: { click: closeRules } }, t("close"))),
    note,
    ...body,
  );
}

// ---------------------------------------------------------------- rendering
const main = () => document.getElementById("main");

function render(full = false) {
  const root = main();
  const lobby = root.querySelector(".lobby");
  if (!full && app.welcome && !app.table && (app.duplicate || app.tournaments || app.teams) && !app.profile && !app.leaderboard) return; // they redraw their own sections
  if (!full && app.welcome && !app.table && !app.profile && !app.leaderboard && lobby && lobby.dataset.games === String(app.games.length)) {
    lobby.querySelector("ul.tables").replaceChildren(...tableRows()); // keep what was typed
    return;
  }
  const typing = root.querySelector(".chat-input"); // keep a chat line being typed
  const draft = typing ? typing.value : "";
  const focused = typing !== null && document.activeElement === typing;
  root.replaceChildren();
  if (!app.welcome) {
    if (!store.getItem("cardavia.token") && !store.getItem("cardavia.name")) renderName();
    return;
  }
  if (app.profile && !app.account) app.profile = null; // logged out meanwhile
  if (app.call && !(app.table && app.table.info.id === app.call.table) && !app.call.auto) root.append(callView());
  if (app.teamCall) root.append(teamCallView());
  root.append(app.table ? tableView() : app.profile ? profileView() : app.leaderboard ? leaderboardView() : app.duplicate ? duplicateView() : app.tournaments ? tournamentsView() : app.teams ? teamsView() : lobbyView());
  const input = root.querySelector(".chat-input");
  if (input && draft) input.value = draft;
  if (input && focused) input.focus();
}

function renderName() {
  const input = h("input", { id: "name", maxlength: 32, required: true, value: store.getItem("cardavia.name") || "", "aria-label": t("your_name") });
  const form = h(
    "form",
    {
      class: "name",
      on: {
        submit: (ev) => {
          ev.preventDefault();
          const name = input.value.trim();
          if (!name) return;
          store.setItem("cardavia.name", name);
          hello();
        },
      },
    },
    h("label", { for: "name" }, t("your_name")),
    input,
    h("button", { type: "submit", id: "save-name" }, t("save_name")),
  );
  main().replaceChildren(form, accountView());
}

/** The inputs of a game's own options; all but the card pattern are house rules, which
 * a rated table does not play (class house-rule: hidden while "rated" is ticked). */
function optionInputs(game) {
  return Object.entries(game.options || {}).map(([key, value]) => {
    const id = `opt-${game.id}-${key}`;
    if (key === "pattern" && typeof value === "string") {
      const select = h("select", { id, name: key }, patternsLike(value).map((p) => h("option", { value: p, selected: p === value }, tOr("patterns." + p, p))));
      return h("label", { class: "option" }, t("pattern"), " ", select);
    }
    const type = typeof value === "number" ? "number" : typeof value === "boolean" ? "checkbox" : "text";
    const input = h("input", { id, name: key, type, data: { kind: typeof value } });
    if (type === "checkbox") input.checked = value;
    else input.value = value === null ? "" : String(value);
    return h("label", { class: "option house-rule" }, tOr("options." + key, key.replaceAll("_", " ")), " ", input);
  });
}

/** The game's options as the form sets them; ``rated``: the card pattern only (a rated
 * table plays the standard rules). */
function readOptions(form, game, rated = false) {
  const out = {};
  for (const [key, value] of Object.entries(game.options || {})) {
    const input = form.querySelector(`[name="${key}"]`);
    if (!input || (rated && key !== "pattern")) continue;
    if (typeof value === "boolean") out[key] = input.checked;
    else if (typeof value === "number") out[key] = Number(input.value);
    else if (input.value !== "") out[key] = input.value;
  }
  return out;
}

function lobbyView() {
  const games = app.games.map((game) => {
    const form = h("form", { class: "game", data: { game: game.id } });
    const priv = h("input", { type: "checkbox", name: "private" });
    const ai = h("input", { type: "checkbox", name: "ai_fill", checked: true });
    const hints = h("input", { type: "checkbox", name: "hints", checked: true }); // off: --no-hints
    const timer = h("input", { type: "number", name: "turn_timer", min: 1, max: 3600, placeholder: "—" });
    const levels = game.levels || [];
    const level = h("select", { name: "level" }, levels.map((l, i) => h("option", { value: l, selected: i === levels.length - 1 }, tOr("levels." + l, l)))); // the strongest by default, as the terminal
    // rated (logged in only: every seat of a rated table is an account or an AI level):
    // the standard rules, no hints, the rated AI levels only
    const rated = h("input", { type: "checkbox", name: "rated", on: { change: () => ratedForm(form, rated.checked, level) } });
    const withBots = h("input", { type: "checkbox", name: "with_bots" }); // the rated queue may seat bot accounts with us
    form.append(
      h("h3", {}, game.title, h("small", {}, ` · ${game.seats}`)),
      h("div", { class: "options" }, optionInputs(game)),
      app.account ? h("label", { class: "option rated-option", title: t("rated_title") }, rated, " ", t("rated")) : null,
      app.account ? h("label", { class: "option" }, withBots, " ", t("with_bots")) : null,
      h("label", { class: "option" }, priv, " ", t("private")),
      h("label", { class: "option" }, ai, " ", t("ai_fill")),
      h("label", { class: "option" }, t("ai_level"), " ", level),
      h("label", { class: "option house-rule" }, hints, " ", t("hints_allowed")),
      h("label", { class: "option" }, t("turn_timer"), " ", timer),
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", class: "quick", on: { click: () => quickPlay(game.id, level.value || null) } }, t("quick_play")),
        app.account ? h("button", { type: "button", class: "rated-quick", disabled: app.queue !== null, on: { click: () => ratedQuickPlay(game.id, withBots.checked) } }, t("rated_quick")) : null,
        h(
          "button",
          {
            type: "button",
            class: "create",
            on: {
              click: () => {
                const options = { game: readOptions(form, game, rated.checked), private: priv.checked, hints: hints.checked && !rated.checked };
                if (rated.checked) options.rated = true;
                // the AI at the chosen level takes every other seat from the start (--level)
                if (ai.checked) options.ai = Array.from({ length: game.seats - 1 }, (_, i) => ({ seat: i + 1, level: level.value || null }));
                if (timer.value) options.turn_timer = Number(timer.value);
                send({ type: "create_table", game: game.id, options });
              },
            },
          },
          t("create"),
        ),
        rulesButton(game.id),
        h("button", { type: "button", class: "leaderboard", on: { click: () => openLeaderboard(game.id) } }, t("leaderboard.open")),
      ),
    );
    return form;
  });
  return h(
    "div",
    { class: "lobby", data: { games: app.games.length } },
    accountView(),
    h(
      "nav",
      { class: "pages", "aria-label": t("pages") },
      h("button", { type: "button", id: "open-duplicate", on: { click: () => openDuplicate() } }, t("duplicate.open")),
      h("button", { type: "button", id: "open-tournaments", on: { click: () => openTournaments() } }, t("tournaments.open")),
      h("button", { type: "button", id: "open-teams", on: { click: () => openTeams() } }, t("teams.open")),
    ),
    app.queue ? queueView() : null,
    h("section", {}, h("h2", {}, t("games")), games),
    h("section", {}, h("h2", {}, t("open_tables")), h("ul", { class: "tables" }, tableRows())),
  );
}

/** Tick or untick "rated" on a game's form: hide its house rules (and hints), and offer
 * only the AI levels a rated table may seat. */
function ratedForm(form, on, level) {
  form.classList.toggle("rated", on);
  for (const node of form.querySelectorAll(".house-rule")) node.hidden = on;
  for (const option of level.options) option.hidden = option.disabled = on && !RATED_LEVELS.includes(option.value);
  if (on && level.selectedOptions[0] && level.selectedOptions[0].disabled) {
    const allowed = [...level.options].filter((o) => !o.disabled);
    if (allowed.length) allowed[allowed.length - 1].selected = true; // the strongest rated level
  }
}

/** The lobby's mark of a rated table (its games change the players' ratings). */
function ratedBadge(info) {
  return info.rated ? h("span", { class: "badge rated", title: t("rated_title") }, t("rated_badge")) : null;
}

function tableRows() {
  return app.tables.length
    ? app.tables.map((info) =>
        h(
          "li",
          { class: "table-row", data: { table: info.id } },
          ratedBadge(info),
          h("span", {}, `${info.title} · ${info.status} · `, info.seats.map((s) => seatName(s)).join(", ")),
          // a rated table seats accounts only: a guest may watch it
          info.status === "waiting" && info.seats.some((s) => s.kind === "empty") && (app.account || !info.rated)
            ? h("button", { on: { click: () => send({ type: "join_table", table: info.id }) } }, t("join"))
            : null,
          h("button", { on: { click: () => send({ type: "spectate", table: info.id }) } }, t("watch")),
        ),
      )
    : [h("li", {}, t("no_tables"))];
}

/** A seat as the terminal names it (client_cli/render/base.py, seat_name): seats
 * counted from 0 as everywhere in Cardavia (``--seat 0``), an AI with its level. */
function seatName(s) {
  if (!s) return "";
  if (s.kind === "empty") return t("seat_empty", { n: s.seat });
  if (s.kind === "ai") return s.level ? t("seat_ai_level", { n: s.seat, level: tOr("levels." + s.level, s.level) }) : t("seat_ai", { n: s.seat });
  const name = s.bot ? t("seat_bot", { name: s.name || "?" }) : s.name || "?"; // a bot account
  if (s.ai_covering) return t("seat_away_ai", { name });
  return s.connected ? name : t("seat_away", { name });
}

function pattern() {
  if (!app.table && app.shownGame) {
    const game = app.games.find((g) => g.id === app.shownGame.game);
    return app.shownGame.pattern || (game && game.options && game.options.pattern) || "french";
  }
  const v = app.table && app.table.view;
  return (v && v.options && v.options.pattern) || (app.table && app.table.info.options && app.table.info.options.pattern) || "french";
}

function cards(list, opts = {}) {
  return h("div", { class: "cards" + (opts.cls ? " " + opts.cls : "") }, (list || []).map((c) => cardElement(c, S, pattern(), { small: opts.small })));
}

function isCardList(v) {
  return Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === "string" && c.length === 2);
}

function describe(value) {
  if (value === null || value === undefined) return "—";
  if (isCardList(value)) return cards(value, { small: true });
  if (Array.isArray(value)) return value.map((x) => (typeof x === "object" && x !== null ? describeObject(x) : String(x))).join(" · ");
  if (typeof value === "object") return describeObject(value);
  return valueText("", value);
}

function describeObject(obj) {
  return Object.entries(obj)
    .filter(([, v]) => v !== null && typeof v !== "object")
    .map(([k, v]) => `${fieldName(k)}: ${valueText(k, v)}`)
    .join(", ");
}

// View fields drawn in their own places (the rest shows under "Game").
const PLACED = new Set(["options", "seat", "to_act", "hand", "hand_counts", "table", "legal", "over", "winner", "last_play", "trick", "last", "last_seat", "history", "tricks", "piles", "game"]);

function tableView() {
  const table = app.table;
  const view = table.view;
  const info = table.info;
  const me = table.seat;
  const toAct = (view && view.to_act) || [];
  const seats = info.seats.length ? info.seats : (view && view.hand_counts ? view.hand_counts.map((_, i) => ({ seat: i, kind: "human" })) : []);
  const head = h(
    "div",
    { class: "table-head" },
    h("button", { class: "lobby-link", on: { click: () => send({ type: "leave", table: info.id }) } }, t("leave")),
    h("strong", {}, info.title || info.game),
    h("span", { class: "table-id" }, ` ${info.id}`),
    ratedBadge(info),
    table.invite && !dupBoardOf(info.id) && !teamMatchOf(info.id) ? h("span", { class: "invite" }, ` ${t("invite_link")}: `, h("input", { readonly: true, class: "invite-link", value: `${location.origin}/#table=${info.id}&invite=${table.invite}` })) : null,
    info.status === "waiting" && info.owner === (app.welcome && app.welcome.player_id) ? h("button", { on: { click: () => send({ type: "start", table: info.id }) } }, t("start")) : null,
    rulesButton(info.game),
  );
  const seatRow = h(
    "ol",
    { class: "seats" },
    seats.map((s, i) => {
      const count = view && view.hand_counts ? view.hand_counts[i] : null;
      const turn = toAct.includes(i);
      const score = view && Array.isArray(view.totals) ? view.totals[i] : null;
      const teamPiles = view && Array.isArray(view.piles) && view.piles.length === 2 && seats.length === 4; // Cicera: a pile per team
      const piles = view && Array.isArray(view.piles) && (view.piles.length === seats.length || teamPiles) ? view.piles[teamPiles ? i % 2 : i] : null;
      const taken = Array.isArray(piles) ? piles.length : typeof piles === "number" ? piles : null;
      return h(
        "li",
        { class: "seat" + (turn ? " turn" : "") + (i === me ? " me" : ""), data: { seat: i } },
        h("span", { class: "who" }, seatName(s) + (i === me ? ` (${t("you")})` : "")),
        s.kind === "human" && i !== me ? playerActions(s.player_id, s.name || "?") : null,
        count !== null && count !== undefined ? h("span", { class: "count" }, t("cards_in_hand", { n: count })) : null,
        taken !== null ? h("span", { class: "pile" }, t("pile", { n: taken })) : null,
        score !== null && score !== undefined ? h("span", { class: "score" }, t("score_n", { n: score })) : null,
        turn && table.timer ? h("span", { class: "timer", data: { until: table.timer } }, t("timer", { s: Math.max(0, Math.ceil((table.timer - Date.now()) / 1000)) })) : null,
        seatRole(view, i),
        i === me ? null : seatMove(table.recent[i]),
      );
    }),
  );
  const parts = [head, seatRow];
  if (!view) {
    parts.push(h("p", { class: "waiting" }, info.status === "waiting" ? t("waiting") : t("connecting")));
  } else {
    parts.push(turnLine(view, seats, me));
    if (table.last) parts.push(lastMove(table.last, seats));
    if (Array.isArray(view.table)) parts.push(h("section", { class: "board" }, h("h3", {}, t("table")), cards(view.table, { cls: "table-cards" })));
    if (Array.isArray(view.trick) && view.trick.length) parts.push(h("section", { class: "trick" }, h("h3", {}, t("current_trick")), trickCards(view.trick.map((x) => (typeof x === "string" ? x : x.card)).filter(Boolean), view.leader, null, seats)));
    const lastTrick = Array.isArray(view.tricks) && view.tricks.length ? view.tricks[view.tricks.length - 1] : null;
    if (lastTrick && Array.isArray(lastTrick.cards)) parts.push(lastTrickView(lastTrick, seats));
    if (view.last && Array.isArray(view.last.cards)) parts.push(h("section", { class: "last-play" }, h("h3", {}, t("last_play"), typeof view.last_seat === "number" ? ` · ${who(view.last_seat)}` : ""), cards(view.last.cards, { small: true })));
    if (view.last_play && view.last_play.card) {
      const lp = view.last_play;
      parts.push(h("section", { class: "last-play" }, h("h3", {}, t("last_play"), " · ", seatName(seats[lp.seat])), cards([lp.card, ...(lp.captured || [])], { small: true })));
    }
    if (me !== null && me !== undefined) parts.push(handView(view));
    else parts.push(h("p", {}, t("spectating")));
    parts.push(movesView());
    parts.push(detailsView(view));
  }
  if (table.dealScore) parts.push(dealScoreView(table.dealScore));
  if (table.result) parts.push(resultView(table.result, seats));
  parts.push(chatView());
  return h("div", { class: "table-view", data: { version: table.version, table: info.id } }, parts);
}

/** A trick's cards in the order played, each with the name of the seat that played it. */
function trickCards(list, leader, winner, seats) {
  const n = seats.length || 1;
  return h(
    "div",
    { class: "cards trick-cards" },
    list.map((code, i) => {
      const seat = typeof leader === "number" ? (leader + i) % n : null;
      return h(
        "figure",
        { class: "trick-card" + (seat !== null && seat === winner ? " winner" : ""), data: { seat: seat === null ? "" : seat } },
        cardElement(code, S, pattern(), { small: true }),
        seat === null ? null : h("figcaption", {}, seat === app.table.seat ? t("you") : seatName(seats[seat])),
      );
    }),
  );
}

/** The last trick, folded away until the player opens it (open while nothing is on the table). */
function lastTrickView(trick, seats) {
  const summary = [t("last_trick")];
  if (typeof trick.winner === "number") summary.push(" · ", t("trick_won_by", { name: trick.winner === app.table.seat ? t("you") : seatName(seats[trick.winner]) }));
  if (typeof trick.points === "number") summary.push(" · ", t("trick_points", { n: trick.points }));
  const table = app.table;
  const open = typeof table.showLast === "boolean" ? table.showLast : !(Array.isArray(table.view.trick) && table.view.trick.length);
  const node = h("details", { class: "last-trick", open }, trickCards(trick.cards, trick.leader, trick.winner, seats));
  node.prepend(h("summary", { on: { click: () => (table.showLast = !node.open) } }, ...summary)); // the player's choice sticks
  return node;
}

function turnLine(view, seats, me) {
  const toAct = view.to_act || [];
  if (view.over) return h("p", { class: "turn-line" }, t("game_over"));
  if (me !== null && toAct.includes(me)) return h("p", { class: "turn-line mine" }, t("your_turn"), turnTimer());
  return h("p", { class: "turn-line" }, toAct.map((s) => t("turn_of", { name: seatName(seats[s]) })).join(", "), turnTimer());
}

/** The turn timer's countdown for the turn line (none without a timer). */
function turnTimer() {
  const until = app.table.timer;
  if (!until) return null;
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return h("span", { class: "timer turn-timer" + (left <= 10 ? " low" : ""), data: { until } }, t("timer", { s: left }));
}

function lastMove(last, seats) {
  const own = last.events.filter((e) => e.data && e.data.seat === last.seat).map((e) => moveOf(e.kind, e.data)).filter(Boolean);
  const what = own.length
    ? own.map(moveWords).join("; ")
    : last.events
        .filter((e) => e.kind !== "hand" && e.kind !== "deal")
        .map((e) => eventText(S, app.table.info.game, pattern(), e))
        .join(", ");
  const by = last.by === "ai" ? " " + t("by_ai") : last.by === "timer" ? " " + t("by_timer") : "";
  return h("p", { class: "last-move", data: { seat: last.seat } }, t("played", { name: seatName(seats[last.seat]), what }) + by);
}

function handView(view) {
  const moves = legal();
  const hinted = new Set(app.hint ? cardsOf(app.hint.action) : []);
  const playable = new Set(moves.flatMap(cardsOf));
  // Dou Dizhu: suits never matter, a card of a playable rank can be part of a play
  const ranks = app.table.info.game === "doudizhu" ? new Set([...playable].map((c) => c[0] + (c[1] === "J" ? "J" : ""))) : new Set();
  const hand = sortHand(view.hand || [], pattern(), app.table.info.game, view.contract);
  const row = h("div", { class: "cards hand" });
  for (const code of hand) {
    const can = playable.has(code) || ranks.has(code[0] + (code[1] === "J" ? "J" : ""));
    const selectable = can || selectsFirst(); // Dou Dizhu: any card may go into a selection
    const node = cardElement(code, S, pattern(), { clickable: selectable });
    if (can) node.classList.add("playable");
    if (selectable) {
      node.addEventListener("click", () => clickCard(code));
      node.setAttribute("aria-pressed", String(app.selected.has(code)));
    } else if (node.tagName === "BUTTON") node.disabled = true;
    if (app.selected.has(code)) node.classList.add("selected");
    if (hinted.has(code)) node.classList.add("hinted");
    row.append(node);
  }
  return h("section", { class: "my-hand" }, h("h3", {}, t("hand")), row);
}

function movesView() {
  const box = h("div", { class: "moves" });
  if (app.choice) {
    box.append(
      h("p", {}, t("choose_capture", { card: cardName(app.choice.card, S, pattern()) })),
      ...app.choice.moves.map((m) => {
        const taken = (m.capture || []).length ? [h("span", {}, ` ${t("takes")} `), cards(m.capture, { small: true })] : [h("span", {}, ` ${t("takes_nothing")}`)];
        return h("button", { class: "choice", on: { click: () => act(m) } }, cardElement(m.card, S, pattern(), { small: true }), ...taken);
      }),
      h("button", { class: "cancel", on: { click: () => ((app.choice = null), render()) } }, t("cancel")),
    );
    return box;
  }
  const others = legal().filter((a) => cardsOf(a).length === 0);
  const hinted = app.hint ? app.hint.action : null;
  for (const action of others) {
    const mark = hinted && JSON.stringify(hinted) === JSON.stringify(action) ? " hinted" : "";
    box.append(h("button", { class: "move" + mark, data: { type: action.type || "" }, on: { click: () => act(action) } }, actionLabel(action)));
  }
  if (app.selected.size || (selectsFirst() && isMyTurn())) {
    const move = isMyTurn() ? selectedMove() : null;
    box.append(h("button", { class: "play-selected", disabled: !move, on: { click: () => move && act(move) } }, t("play_selected")));
    const why = app.selected.size && !move && selectsFirst() ? whyNot() : "";
    if (why) box.append(h("p", { class: "selection-why", role: "status" }, why));
  }
  if (isMyTurn() && app.table.info.hints !== false) {
    box.append(h("button", { class: "hint", type: "button", on: { click: askHint } }, t("hint")));
  }
  if (app.hint) box.append(h("p", { class: "hint-line", data: { index: app.hint.index } }, t("hint_line", { move: hintWords(app.hint.action), level: tOr("levels." + app.hint.level, app.hint.level) })));
  return box;
}

/** Ask the server for the strongest AI's move from this seat's view (docs/protocol.md, Hint). */
function askHint() {
  const table = app.table;
  send({ type: "hint", table: table.info.id }, (reply) => {
    if (reply.type === "error") toast(errorMessage(S, reply));
  });
}

/** A suggested move in words: its cards by name (and what they take), or its call. */
function hintWords(action) {
  const list = cardsOf(action);
  if (!list.length) return actionLabel(action);
  const names = (codes) => codes.map((c) => cardName(c, S, pattern())).join(", ");
  const taken = Array.isArray(action.capture) && action.capture.length ? ` ${t("takes")} ${names(action.capture)}` : "";
  return names(list) + taken;
}

/** Why the selected cards are no legal play now, in words (Dou Dizhu: the selection is
 * played only by the Play button, so the player is told what is wrong with it). */
function whyNot() {
  const view = app.table.view;
  if (!isMyTurn()) return t("why.not_your_turn");
  const last = view.last && Array.isArray(view.last.cards) && view.last_seat !== app.table.seat ? view.last : null;
  if (!last) return t("why.not_a_combination");
  return t("why.must_beat", { combo: termOf(last.combo), n: last.cards.length });
}

function detailsView(view) {
  const rows = Object.entries(view)
    .filter(([k, v]) => !PLACED.has(k) && v !== null && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => h("tr", {}, h("th", {}, fieldName(k)), h("td", {}, detailCell(k, v))));
  return h("details", { class: "details", open: true }, h("summary", {}, t("details")), h("table", {}, rows));
}

/** A seat by name for the details ("you" for the page's own seat). */
function who(seat) {
  return seat === app.table.seat ? t("you") : seatName(app.table.info.seats[seat]) || String(seat);
}

const DETAIL_SEATS = new Set(["dealer", "landlord", "leader", "first_bidder", "last_capturer", "partner"]);

/** One row of the game details in words: the auction's calls, the contract, team bonuses. */
function detailCell(key, value) {
  if ((key === "bids" || key === "auction") && Array.isArray(value) && value.every((b) => b && typeof b.seat === "number")) {
    return value
      .map((b) => {
        const pass = b.contract === null || b.bid === 0;
        const call = pass ? t("action.pass") : typeof b.bid === "number" ? t("action.bid", { value: b.bid }) : contractLabel(b.contract, b.suit);
        return `${who(b.seat)}: ${call}`;
      })
      .join("; ");
  }
  if (typeof value === "number" && DETAIL_SEATS.has(key)) return who(value);
  if (key === "deal_no" && typeof value === "number") return dealNumber(value);
  if (key === "contract" && value && typeof value === "object" && typeof value.kind === "string") {
    return `${contractLabel(value.kind, value.suit)}${typeof value.declarer === "number" ? " · " + who(value.declarer) : ""}`;
  }
  if (key === "bonuses" && Array.isArray(value) && app.table.info.game === "cicera") {
    return value.map((b, team) => `${t("team", { n: team + 1 })}: ${describe(b)}`).join("; ");
  }
  const text = fieldText(key, value);
  if (text !== undefined) return text;
  if (value && typeof value === "object" && !Array.isArray(value)) return scoreTable(value);
  if (typeof value === "string" || typeof value === "boolean") return valueText(key, value);
  return describe(value);
}

/** A deal's number as the terminal says it: counted from 1, "of N" in a series of N deals (a
 * Scopa match to its target has `deals` 0: no fixed count). */
function dealNumber(dealNo) {
  const view = app.table.view;
  const deals = view && view.options ? view.options.deals : null;
  return typeof deals === "number" && deals > 0 ? t("deal_of", { deal: dealNo + 1, deals }) : String(dealNo + 1);
}

function dealScoreView(data) {
  return h("details", { class: "deal-score", open: true }, h("summary", {}, t("deal_scoring")), scoreTable(data));
}

const SEAT_KEYS = new Set(["declarer", "partner", "landlord", "winner", "dealer", "team"]);

/** A scoring record as nested tables: per-seat figures side by side, seats and teams by name. */
function scoreTable(data) {
  const rows = Object.entries(data).map(([k, v]) => h("tr", {}, h("th", {}, fieldName(k)), h("td", {}, scoreCell(k, v))));
  return h("table", { class: "score-table" }, rows);
}

function scoreCell(key, value) {
  if (typeof value === "number" && (SEAT_KEYS.has(key) || key.endsWith("_award"))) {
    if (app.table.info.game === "cicera") return t("team", { n: value + 1 }); // Cicera scores by team
    const seats = app.table.info.seats;
    return value === app.table.seat ? t("you") : seatName(seats[value]) || String(value);
  }
  if (key === "suit" && typeof value === "string") return suitName(value, S, pattern());
  if (key === "deal_no" && typeof value === "number") return dealNumber(value);
  if (key === "contract" && typeof value === "string") return contractLabel(value, null);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return scoreTable(value);
  if (Array.isArray(value) && !isCardList(value) && value.every((x) => x === null || typeof x !== "object")) return value.map((x) => (x === null ? "—" : String(x))).join(" · ");
  if (typeof value === "string" || typeof value === "boolean") return valueText(key, value);
  return describe(value);
}

/** Buttons on another player's name (docs/protocol.md, "Moderation"): mute and block
 * (toggles), report (asks the reason), and kick for the table's owner before the game. */
function playerActions(playerId, name) {
  if (!playerId) return null;
  const table = app.table;
  const me = app.welcome && app.welcome.player_id;
  const toggle = (set, on, off, key) =>
    h(
      "button",
      {
        class: key,
        data: { player: playerId },
        on: {
          click: () =>
            send({ type: set.has(playerId) ? off : on, player: playerId }, (reply) => {
              if (reply.type !== "ok") return;
              if (set.has(playerId)) set.delete(playerId);
              else set.add(playerId);
              toast(t("moderation." + (set.has(playerId) ? on : off) + "_done", { name }));
              render();
            }),
        },
      },
      t("moderation." + (set.has(playerId) ? off : on)),
    );
  const report = h(
    "button",
    {
      class: "report",
      data: { player: playerId },
      on: {
        click: () => {
          const reason = (window.prompt(t("moderation.report_reason", { name })) || "").trim();
          if (!reason) return;
          const msg = { type: "report", player: playerId, reason: reason.slice(0, 500) };
          if (table) msg.table = table.info.id;
          send(msg, (reply) => {
            if (reply.type === "reported") toast(t("moderation.report_sent", { name }));
          });
        },
      },
    },
    t("moderation.report"),
  );
  const owner = table && table.info.owner === me && table.info.status === "waiting";
  const kick = owner
    ? h(
        "button",
        {
          class: "kick",
          data: { player: playerId },
          on: { click: () => send({ type: "kick", table: table.info.id, player: playerId }) },
        },
        t("moderation.kick"),
      )
    : null;
  return h(
    "span",
    { class: "player-actions", "aria-label": t("moderation.actions", { name }) },
    toggle(app.muted, "mute", "unmute", "mute"),
    toggle(app.blocked, "block", "unblock", "block"),
    report,
    kick,
  );
}

/** "Your Scopa rating: 1532 ± 120 (+32)." once the server has rated the game just over. */
function ratingLine(table) {
  const r = table.rating && table.rating.gameNo === table.gameNo ? table.rating.after : null;
  if (!r) return null;
  const text = t("ratings.after", { game: gameTitle(r.game), rating: ratingText(r.rating, r.deviation, r.provisional), change: changeText(r.change) });
  return h("p", { class: "rating-after" }, text);
}

function resultView(result, seats) {
  const winners = (result.winners || []).map((s) => seatName(seats[s]));
  const table = app.table;
  return h(
    "section",
    { class: "result" },
    h("h3", {}, t("game_over")),
    h("p", {}, winners.length ? t("winner", { names: winners.join(", ") }) : t("draw")),
    h("p", { class: "scores" }, `${t("scores")}: ${(result.scores || []).join(" – ")}`),
    ratingLine(table),
    dupBoardOf(table.info.id) ? dupAfterBoard(table, dupBoardOf(table.info.id)) : null,
    // a duplicate board or a tournament round is played once: no rematch there
    table.seat !== null && !dupBoardOf(table.info.id) && !tournamentOf(table.info.id) && !teamMatchOf(table.info.id) ? h("button", { class: "rematch", on: { click: () => send({ type: "rematch", table: table.info.id }) } }, t("rematch")) : null,
    tournamentOf(table.info.id)
      ? h("button", { type: "button", class: "to-tournament", on: { click: () => send({ type: "leave", table: table.info.id }, () => openTournaments(tournamentOf(table.info.id))) } }, t("tournaments.back"))
      : null,
    teamMatchOf(table.info.id)
      ? h("button", { type: "button", class: "to-team-match", on: { click: () => send({ type: "leave", table: table.info.id }, () => openTeams(teamMatchOf(table.info.id))) } }, t("teams.back"))
      : null,
    h("button", { on: { click: () => send({ type: "leave", table: table.info.id }) } }, t("back_to_lobby")),
  );
}

function chatView() {
  const input = h("input", { class: "chat-input", maxlength: 300, "aria-label": t("chat") });
  const table = app.table;
  return h(
    "section",
    { class: "chat" },
    h(
      "ul",
      {},
      table.chat
        .filter((c) => !app.muted.has(c.player_id) && !app.blocked.has(c.player_id))
        .map((c) =>
          h(
            "li",
            {},
            h("b", {}, (c.bot ? t("seat_bot", { name: c.name }) : c.name) + ": "),
            c.text,
            c.player_id !== (app.welcome && app.welcome.player_id) ? playerActions(c.player_id, c.name) : null,
          ),
        ),
    ),
    h(
      "form",
      {
        on: {
          submit: (ev) => {
            ev.preventDefault();
            const text = input.value.trim();
            if (text) send({ type: "chat", table: table.info.id, text });
            input.value = "";
          },
        },
      },
      input,
      h("button", { type: "submit" }, t("send")),
    ),
  );
}

// the turn timer counts down between updates
setInterval(() => {
  for (const node of document.querySelectorAll(".timer[data-until]")) {
    node.textContent = t("timer", { s: Math.max(0, Math.ceil((Number(node.dataset.until) - Date.now()) / 1000)) });
    node.classList.toggle("low", Number(node.dataset.until) - Date.now() <= 10000); // hurry
  }
}, 500);

// the time waited in the rated queue counts up
setInterval(() => {
  for (const node of document.querySelectorAll(".queue-waited[data-since]")) {
    node.textContent = t("queue.waited", { s: Math.max(0, Math.round(Date.now() / 1000 - Number(node.dataset.since))) });
  }
}, 1000);

// the lobby's list of tables refreshes while it is shown (not under the profile or the
// leaderboard: redrawing them would close a menu being used; back in the lobby it asks)
setInterval(() => {
  if (app.welcome && !app.table && !app.profile && !app.leaderboard && !app.duplicate && !app.tournaments && document.visibilityState === "visible") listTables();
}, 5000);

window.addEventListener("hashchange", () => {
  const invited = hashParams().get("team"); // a team match's invite link opened in this tab
  if (app.welcome && invited && !app.table) {
    history.replaceState(null, "", location.pathname);
    openTeams(invited, true);
  } else if (app.welcome && hashParams().get("table") && !app.table) onWelcome(app.welcome);
});

/** Show the page in ``code``: load its strings and redraw what is shown (the seat
 * and the table stay; nothing is sent). */
async function setLanguage(code) {
  const ticket = ++setLanguage.calls; // the last pick wins, however the loads end
  const strings = await loadStrings(code);
  if (ticket !== setLanguage.calls) return;
  lang = code;
  S = strings;
  document.documentElement.lang = code;
  yourTurn(isMyTurn(), t("your_turn"), t("title"));
  document.getElementById("title").textContent = t("title");
  const select = document.getElementById("lang");
  if (select) {
    select.value = code;
    select.setAttribute("aria-label", t("language"));
  }
  const sound = document.getElementById("sound");
  if (sound) sound.setAttribute("aria-label", (sound.title = t("sound")));
  if (app.welcome) showName();
  else setStatus(app.retry ? t("reconnecting") : t("connecting"));
}

setLanguage.calls = 0;

async function main_() {
  await setLanguage(chooseLanguage(store, navigator.languages || [navigator.language]));
  const onPick = async (code) => {
    rememberLanguage(store, code);
    await setLanguage(code);
    if (lang !== code) return;
    render(true);
    if (app.rules) showRules(app.rules.game); // in the new language where it has them
  };
  document.querySelector("header").append(languageSwitch(lang, t("language"), onPick), soundSwitch(t("sound")));
  connect();
}

window.cardavia = app; // for tests and debugging
main_();
