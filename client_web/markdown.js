// The players' rules (client_cli/rules/*.md, served at /rules/LANG/GAME.md) drawn as
// HTML: the Markdown those files use — headings, paragraphs, lists, tables, code,
// bold and italics, links as their text. Every piece of text goes in through
// textContent (never innerHTML), so nothing in a file can become markup or script.

const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*|\[[^\]]+\]\([^)\s]*\))/;

/** The nodes of one line's inline Markdown: code spans, bold, italics, links as text. */
export function inline(text) {
  const out = [];
  for (const part of String(text).split(INLINE)) {
    if (!part) continue;
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) out.push(element("code", part.slice(1, -1)));
    else if (part.startsWith("**") && part.endsWith("**") && part.length > 4) out.push(element("strong", ...inline(part.slice(2, -2))));
    else if (part.startsWith("*") && part.endsWith("*") && part.length > 2) out.push(element("em", ...inline(part.slice(1, -1))));
    else if (part.startsWith("[") && part.includes("](")) out.push(element("span", ...inline(part.slice(1, part.indexOf("](")))));
    else out.push(document.createTextNode(part));
  }
  return out;
}

function element(tag, ...children) {
  const node = document.createElement(tag);
  for (const child of children) node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

const LIST_ITEM = /^\s*(?:[-*]|\d+\.)\s+/;

/** A Markdown text as a fragment of elements (the subset the rules files use). */
export function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
    } else if (line.startsWith("```")) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      i++;
      out.append(element("pre", element("code", code.join("\n"))));
    } else if (/^#{1,6}\s/.test(line)) {
      const level = line.match(/^#+/)[0].length;
      out.append(element(`h${Math.min(6, level + 1)}`, ...inline(line.replace(/^#+\s*/, "")))); // h1 is the page's
      i++;
    } else if (line.trim().startsWith("|")) {
      const rows = [];
      for (; i < lines.length && lines[i].trim().startsWith("|"); i++) rows.push(lines[i]);
      const body = rows.filter((r) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(r)); // drop the |---| rule
      const [head, ...rest] = body;
      out.append(
        element(
          "table",
          element("thead", element("tr", ...cells(head).map((c) => element("th", ...inline(c))))),
          element("tbody", ...rest.map((r) => element("tr", ...cells(r).map((c) => element("td", ...inline(c)))))),
        ),
      );
    } else if (LIST_ITEM.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const list = element(ordered ? "ol" : "ul");
      while (i < lines.length && (LIST_ITEM.test(lines[i]) || (lines[i].startsWith("  ") && lines[i].trim()))) {
        if (LIST_ITEM.test(lines[i])) list.append(element("li", ...inline(lines[i].replace(LIST_ITEM, ""))));
        else list.lastChild.append(" ", ...inline(lines[i].trim())); // a wrapped item goes on
        i++;
      }
      out.append(list);
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() && !/^(#{1,6}\s|```|\s*\|)/.test(lines[i]) && !LIST_ITEM.test(lines[i]); i++) para.push(lines[i].trim());
      out.append(element("p", ...inline(para.join(" "))));
    }
  }
  return out;
}
