// Ratings as the page shows them (issue 55): "1612 ± 94", "1500?" while provisional,
// a change with its sign, and the rating graph of the profile page, drawn here as SVG
// from Profile.ratings[].history (no outside service). The page never recomputes a
// rating: it shows what the server states, as the terminal does (client_cli/rating_view.py).

const SVG = "http://www.w3.org/2000/svg";

/** "1612 ± 94", or "1500?" while provisional (its deviation says little then). */
export function ratingText(rating, deviation, provisional) {
  return provisional ? `${rating}?` : `${rating} ± ${deviation}`;
}

/** A rating change with its sign: "+12", "-8", "±0". */
export function changeText(change) {
  if (change === 0) return "±0";
  return change > 0 ? `+${change}` : String(change);
}

/** Where the graph puts each point of ``history`` (oldest first) in a ``width`` ×
 * ``height`` box with ``pad`` around: one step per rated game (a burst of games
 * is not squeezed into a line), the rating's band of ± deviation in the same scale.
 * {low, high}: the ratings at the bottom and the top edge, rounded out to tens. */
export function graphLayout(history, width, height, pad) {
  const lows = history.map((p) => p.rating - p.deviation);
  const highs = history.map((p) => p.rating + p.deviation);
  let low = Math.floor(Math.min(...lows) / 10) * 10;
  let high = Math.ceil(Math.max(...highs) / 10) * 10;
  if (high - low < 20) {
    low -= 10;
    high += 10;
  }
  const y = (rating) => pad + ((high - rating) * (height - 2 * pad)) / (high - low);
  const step = history.length > 1 ? (width - 2 * pad) / (history.length - 1) : 0;
  const points = history.map((p, i) => ({
    x: history.length > 1 ? pad + i * step : width / 2,
    y: y(p.rating),
    top: y(p.rating + p.deviation),
    bottom: y(p.rating - p.deviation),
    at: p.at,
    rating: p.rating,
    deviation: p.deviation,
  }));
  return { low, high, points };
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const round1 = (v) => Math.round(v * 10) / 10;

/** The rating graph: the band of ± deviation, the line of the rating, a dot per rated
 * game (its tooltip: when, and the rating then), the bottom and top ratings on the
 * left, the first and last day below. ``label`` names it for screen readers;
 * ``dayText(seconds)`` writes a day in the page's language. */
export function ratingGraph(history, label, dayText) {
  const width = 360;
  const height = 140;
  const pad = 12;
  const left = 40; // room for the ratings at the edges
  const bottom = 18; // room for the days
  const inner = graphLayout(history, width - left, height - bottom, pad);
  const pts = inner.points.map((p) => ({ ...p, x: p.x + left }));
  const band = [...pts.map((p) => `${round1(p.x)},${round1(p.top)}`), ...pts.slice().reverse().map((p) => `${round1(p.x)},${round1(p.bottom)}`)].join(" ");
  const line = pts.map((p) => `${round1(p.x)},${round1(p.y)}`).join(" ");
  const chart = svg(
    "svg",
    { class: "rating-graph", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label },
    svg("title", {}, label),
    svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width, y2: height - bottom }),
    svg("text", { class: "edge high", x: left - 4, y: pad + 4, "text-anchor": "end" }, String(inner.high)),
    svg("text", { class: "edge low", x: left - 4, y: height - bottom - pad + 4, "text-anchor": "end" }, String(inner.low)),
    pts.length > 1 ? svg("polygon", { class: "band", points: band }) : null,
    pts.length > 1 ? svg("polyline", { class: "line", points: line }) : null,
    ...pts.map((p) =>
      svg(
        "circle",
        { class: "point", cx: round1(p.x), cy: round1(p.y), r: pts.length > 40 ? 1.5 : 3, "data-rating": p.rating },
        svg("title", {}, `${dayText(p.at)}: ${ratingText(p.rating, p.deviation, false)}`),
      ),
    ),
  );
  if (pts.length) {
    chart.append(svg("text", { class: "day first", x: left, y: height - 4, "text-anchor": "start" }, dayText(pts[0].at)));
    if (pts.length > 1) chart.append(svg("text", { class: "day last", x: width, y: height - 4, "text-anchor": "end" }, dayText(pts[pts.length - 1].at)));
  }
  return chart;
}
