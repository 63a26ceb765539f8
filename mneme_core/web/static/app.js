// The page over Mneme's REST API: people, a person's notes (edit, forget), key histories, a recall
// playground, the mood and closeness over time as charts, the recall log, the health check, the settings.
// Plain script, no library, nothing fetched from anywhere but this server. Every piece of memory is put
// in the page as text (never as HTML): a note is data, whatever it says.
"use strict";

const state = { about: null, words: {}, space: null, subject: null, tab: "notes", offset: 0, notesOffset: 0 };
const TOKEN = "mneme-token";
const $ = (id) => document.getElementById(id);

// -- talking to the server ------------------------------------------------------------------------------

class Refused extends Error {}

async function api(path, { method = "GET", params = {}, body } = {}) {
  const url = new URL(path, location.origin);
  if (state.space && state.about && state.space !== state.about.space) url.searchParams.set("space", state.space);
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    for (const one of [].concat(value)) url.searchParams.append(name, one);
  }
  const headers = {};
  const token = sessionStorage.getItem(TOKEN);
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 401) {
    await askToken();
    return api(path, { method, params, body });
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Refused(data.error || response.statusText);
  return data;
}

function askToken() {
  return new Promise((done) => {
    const dialog = $("token-dialog");
    $("token-form").onsubmit = () => {
      sessionStorage.setItem(TOKEN, $("token-input").value.trim());
      done();
    };
    if (!dialog.open) dialog.showModal();
  });
}

// -- words, times, elements -----------------------------------------------------------------------------

function w(key, values = {}) {
  const said = state.words[key] || key;
  return said.replace(/\{([a-z_]+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function zoneOptions() {
  const zone = (state.about && state.about.zone) || "";
  const fixed = zone.match(/^([+-])(\d\d):(\d\d)$/);
  if (fixed) return { timeZone: "UTC", shift: (fixed[1] === "-" ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3])) };
  return zone ? { timeZone: zone, shift: 0 } : { timeZone: undefined, shift: 0 };
}

function stamp(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const { timeZone, shift } = zoneOptions();
  const moment = new Date((seconds + shift * 60) * 1000);
  const options = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false };
  try {
    return new Intl.DateTimeFormat(lang(), { ...options, timeZone }).format(moment);
  } catch (err) {
    return new Intl.DateTimeFormat(lang(), options).format(moment);
  }
}

function ago(seconds) {
  const delta = seconds - now();
  const steps = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60]];
  const format = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
  for (const [unit, size] of steps) {
    if (Math.abs(delta) >= size) return format.format(Math.round(delta / size), unit);
  }
  return format.format(0, "minute");
}

function now() {
  // The companion's clock, moved on by the time the page has been open.
  return state.about.now + (performance.now() - state.loaded) / 1000;
}

function lang() {
  return (state.about && state.about.display_language) || "en";
}

function say(text, bad = false) {
  const status = $("status");
  status.textContent = text;
  status.className = bad ? "bad" : "";
  clearTimeout(say.timer);
  say.timer = setTimeout(() => (status.textContent = ""), 6000);
}

async function guarded(work) {
  try {
    return await work();
  } catch (err) {
    say(w("failed", { error: err.message }), true);
    return undefined;
  }
}

// -- start ----------------------------------------------------------------------------------------------

async function start() {
  state.about = await api("/api/about");
  state.loaded = performance.now();
  state.space = state.space || state.about.space;
  state.words = state.about.words;
  document.documentElement.lang = lang();
  document.title = w("title", { companion: state.about.companion });
  $("title").textContent = document.title;
  $("space-label").textContent = w("space");
  const spaces = $("space");
  spaces.replaceChildren(...state.about.spaces.map((s) => el("option", { value: s.space, text: s.space, selected: s.space === state.space })));
  $("space-box").hidden = state.about.spaces.length < 2;
  for (const [view, key] of [["people", "people"], ["check", "tab.check"], ["config", "tab.config"]]) {
    $(`view-${view}-button`).textContent = w(key);
  }
  for (const button of document.querySelectorAll("#tabs button")) button.textContent = w("tab." + button.dataset.tab);
  $("search").placeholder = w("search");
  $("people-more").textContent = w("more");
  $("pick").textContent = w("pick");
  $("erase").textContent = w("erase");
  $("token-label").textContent = w("token");
  $("token-go").textContent = w("token_go");
  await loadPeople();
}

// -- people ---------------------------------------------------------------------------------------------

async function loadPeople(more = false) {
  state.offset = more ? state.offset + 50 : 0;
  const page = await api("/api/people", { params: { q: $("search").value, limit: 50, offset: state.offset } });
  const list = $("people");
  if (!more) list.replaceChildren();
  if (!page.people.length && !more) list.append(el("li", { class: "quiet", text: w("nobody") }));
  for (const p of page.people) {
    const seen = p.last_seen ? w("seen", { when: ago(p.last_seen) }) : w("never_seen");
    const role = p.role ? el("span", { class: "badge", text: `${p.role} ${Math.round(p.closeness)}` }) : null;
    list.append(
      el("li", { "data-subject": p.subject, class: p.subject === state.subject ? "on" : null, onclick: () => openPerson(p.subject) },
        el("strong", { text: p.name || p.subject }), role,
        el("div", { class: "quiet", text: `${p.name ? p.subject + " · " : ""}${w("notes_count", { count: p.notes })} · ${seen}` }),
        el("div", { class: "mood-bar", title: `${Math.round(p.mood)}/100` }, el("span", { style: `width:${p.mood}%` })),
      ),
    );
  }
  $("people-more").hidden = state.offset + page.people.length >= page.total;
}

async function openPerson(subject) {
  state.subject = subject;
  for (const li of document.querySelectorAll("#people li")) li.classList.toggle("on", li.dataset.subject === subject);
  const found = await api("/api/person", { params: { subject } });
  $("pick").hidden = true;
  $("person").hidden = false;
  $("person-name").textContent = found.person.name ? `${found.person.name} (${subject})` : subject;
  const role = found.relationship ? ` · ${found.relationship.role} ${found.relationship.closeness}` : "";
  $("person-line").textContent = `${w("notes_count", { count: found.person.notes })} · ${found.mood}${role}`;
  $("person-card").textContent = found.profile ? `${w("profile")}: ${found.profile}` : "";
  state.keys = found.keys;
  await showTab(state.tab);
}

async function showTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll("#tabs button")) button.classList.toggle("on", button.dataset.tab === tab);
  for (const pane of document.querySelectorAll(".tab")) pane.hidden = pane.id !== "tab-" + tab;
  await guarded(() => TABS[tab]($("tab-" + tab)));
}

// -- notes ----------------------------------------------------------------------------------------------

function noteState(note) {
  if (note.deleted_at !== null) return w("forgotten");
  if (note.superseded_by !== null) return w("replaced", { id: note.superseded_by });
  return w("live");
}

function kindChoice(id, chosen, withAll) {
  const options = state.about.kinds.map((k) => el("option", { value: k, text: k, selected: k === chosen }));
  if (withAll) options.unshift(el("option", { value: "", text: w("all_kinds") }));
  return el("select", { id }, options);
}

function importanceChoice(id, chosen) {
  return el("select", { id, title: w("importance") }, [1, 2, 3, 4, 5].map((n) => el("option", { value: n, text: n, selected: n === chosen })));
}

async function notesTab(pane, more = false) {
  if (!more) {
    state.notesOffset = 0;
    const archive = state.about.features.archive;
    // The filters as they are now, before the list is built again (a change of one of them comes here).
    if ($("filter-kind")) {
      Object.assign(state, { filterKind: $("filter-kind").value, filterHistory: $("filter-history").checked, filterArchived: $("filter-archived").checked });
    }
    pane.replaceChildren(
      el("form", { id: "new-note", class: "row", onsubmit: (e) => (e.preventDefault(), guarded(addNote)) },
        el("input", { id: "new-text", placeholder: w("new_note"), required: true }),
        kindChoice("new-kind", "fact"), el("input", { id: "new-key", placeholder: w("key"), size: 10 }), importanceChoice("new-importance", 3),
        el("button", { type: "submit", text: w("add") })),
      el("div", { class: "row" },
        kindChoice("filter-kind", "", true),
        el("label", {}, el("input", { type: "checkbox", id: "filter-history" }), " ", w("with_history")),
        el("label", { title: archive ? null : w("archive_unavailable") }, el("input", { type: "checkbox", id: "filter-archived", disabled: !archive }), " ", w("archived"))),
      el("table", { id: "notes" }, el("tbody")),
      el("button", { type: "button", id: "notes-more", hidden: true, text: w("more"), onclick: () => guarded(() => notesTab(pane, true)) }),
    );
    for (const id of ["filter-kind", "filter-history", "filter-archived"]) $(id).onchange = () => guarded(() => notesTab(pane));
    // Keep the filters across a reload of the list.
    Object.assign($("filter-kind"), { value: state.filterKind || "" });
    $("filter-history").checked = !!state.filterHistory;
    $("filter-archived").checked = archive && !!state.filterArchived;
  } else {
    state.notesOffset += 50;
  }
  state.filterKind = $("filter-kind").value;
  state.filterHistory = $("filter-history").checked;
  state.filterArchived = $("filter-archived").checked;
  const page = await api("/api/notes", {
    params: { subject: state.subject, kind: state.filterKind, history: state.filterHistory, archived: $("filter-archived").checked, limit: 50, offset: state.notesOffset },
  });
  const body = pane.querySelector("#notes tbody");
  if (!more) body.replaceChildren();
  if (!page.notes.length && !more) body.append(el("tr", {}, el("td", { class: "quiet", text: w("no_notes") })));
  for (const note of page.notes) body.append(noteRow(note));
  $("notes-more").hidden = page.next_offset === null;
}

function noteRow(note) {
  const live = note.deleted_at === null && note.superseded_by === null;
  return el("tr", { "data-note": note.id, class: live ? null : "dead" },
    el("td", { class: "quiet", text: `#${note.id}` }),
    el("td", { class: "quiet", text: stamp(note.happened_at) }),
    el("td", {}, el("span", { class: "badge", text: note.kind }), " ", el("span", { class: "quiet", text: "★".repeat(note.importance) })),
    el("td", { class: "key", text: note.key || "" }),
    el("td", { class: "text", text: note.text }),
    el("td", { class: "quiet", text: live ? "" : noteState(note) }),
    el("td", { class: "actions" }, live ? [
      el("button", { type: "button", class: "edit", text: w("edit"), onclick: (e) => editNote(e.target.closest("tr"), note) }),
      el("button", { type: "button", class: "forget danger", text: w("forget"), onclick: () => guarded(() => forgetNote(note)) }),
    ] : null),
  );
}

function editNote(row, note) {
  const text = el("input", { class: "edit-text", value: note.text });
  const importance = importanceChoice("", note.importance);
  row.querySelector(".text").replaceChildren(text);
  row.querySelector(".actions").replaceChildren(
    importance,
    el("button", { type: "button", class: "save", text: w("save"), onclick: () => guarded(async () => {
      const done = await api(`/api/notes/${note.id}`, { method: "PUT", body: { text: text.value, importance: Number(importance.value) } });
      say(`${done.outcome}${done.note ? " #" + done.note.id : ""}`);
      await openPerson(state.subject);
    }) }),
    el("button", { type: "button", text: w("cancel"), onclick: () => row.replaceWith(noteRow(note)) }),
  );
  text.focus();
}

async function forgetNote(note) {
  if (!confirm(w("forget_sure", { id: note.id }))) return;
  await api(`/api/notes/${note.id}`, { method: "DELETE" });
  await openPerson(state.subject);
  await loadPeople();
}

async function addNote() {
  const done = await api("/api/notes", {
    method: "POST",
    body: { subject: state.subject, text: $("new-text").value, kind: $("new-kind").value, key: $("new-key").value || null, importance: Number($("new-importance").value) },
  });
  say(`${done.outcome}${done.note ? " #" + done.note.id : ""}`);
  await openPerson(state.subject);
  await loadPeople();
}

// -- key histories --------------------------------------------------------------------------------------

async function keysTab(pane) {
  const list = el("ul", { id: "keys", class: "plain" });
  const versions = el("ol", { id: "versions" });
  pane.replaceChildren(el("div", { class: "split" }, list, versions));
  if (!state.keys.length) list.append(el("li", { class: "quiet", text: w("no_keys") }));
  for (const key of state.keys) {
    list.append(el("li", { "data-key": key.key, class: key.live ? null : "dead", onclick: () => guarded(() => showHistory(key.key, versions)) },
      el("code", { text: key.key }), " ", el("span", { class: "quiet", text: w("versions", { count: key.versions }) })));
  }
  if (state.keys.length) await showHistory(state.keys[0].key, versions);
}

async function showHistory(key, versions) {
  const found = await api("/api/history", { params: { subject: state.subject, key } });
  versions.replaceChildren(...found.map((note) => el("li", { class: note.deleted_at === null && note.superseded_by === null ? "live" : "dead" },
    el("span", { class: "quiet", text: `#${note.id} ${stamp(note.created_at)} · ${noteState(note)}` }), el("div", { text: note.text }))));
}

// -- the recall playground ------------------------------------------------------------------------------

async function recallTab(pane) {
  const chosen = el("ol", { id: "chosen" });
  const skipped = el("ul", { id: "skipped", class: "plain" });
  const block = el("pre", { id: "block" });
  const explain = el("pre", { id: "explain", class: "quiet" });
  const query = el("input", { id: "query", placeholder: w("query"), value: state.query || "" });
  const run = async () => {
    state.query = query.value;
    const [found, prompt] = await Promise.all([
      api("/api/recall", { params: { subject: state.subject, query: query.value } }),
      api("/api/prompt", { params: { subject: state.subject, query: query.value } }),
    ]);
    chosen.replaceChildren(...found.chosen.map((r) => el("li", { "data-note": r.note.id },
      el("strong", { text: r.why }), el("span", { class: "quiet", text: ` (${r.score.toFixed(2)}) #${r.note.id} ` }), r.note.text)));
    if (!found.chosen.length) chosen.append(el("li", { class: "quiet", text: w("nothing_chosen") }));
    skipped.replaceChildren(...found.skipped.map((s) => el("li", {}, el("span", { class: "quiet", text: `#${s.id} ${s.reason}: ` }), s.text)));
    explain.textContent = found.explain;
    block.textContent = prompt.block;
  };
  pane.replaceChildren(
    el("form", { class: "row", onsubmit: (e) => (e.preventDefault(), guarded(run)) }, query, el("button", { type: "submit", id: "recall-go", text: w("recall") })),
    el("h3", { text: w("chosen") }), chosen, el("h3", { text: w("skipped") }), skipped,
    el("h3", { text: w("block") }), block, explain,
  );
  await run();
}

// -- charts ---------------------------------------------------------------------------------------------

function chart(id, points, { low = 0, high = 100, label = "" } = {}) {
  // A line over time: points are [seconds, value]; the axis shows the first and last day.
  const width = 640, height = 220, pad = 36;
  const svg = (tag, attrs = {}) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    return node;
  };
  const root = svg("svg", { id, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart" });
  const first = points.length ? points[0][0] : 0;
  const last = points.length ? points[points.length - 1][0] : 1;
  const span = Math.max(last - first, 1);
  const x = (t) => pad + ((t - first) / span) * (width - 2 * pad);
  const y = (v) => height - pad - ((v - low) / (high - low)) * (height - 2 * pad);
  for (const v of [low, (low + high) / 2, high]) {
    root.append(svg("line", { x1: pad, x2: width - pad, y1: y(v), y2: y(v), class: "grid" }));
    const tick = svg("text", { x: 4, y: y(v) + 4, class: "tick" });
    tick.textContent = String(v);
    root.append(tick);
  }
  if (points.length) {
    for (const [t, anchor] of [[first, "start"], [last, "end"]]) {
      const day = svg("text", { x: x(t), y: height - 8, class: "tick", "text-anchor": anchor });
      day.textContent = stamp(t).split(/[ ,]+/)[0];
      root.append(day);
    }
    root.append(svg("polyline", { points: points.map(([t, v]) => `${x(t)},${y(v)}`).join(" "), class: "line" }));
    for (const [t, v] of points) {
      const dot = svg("circle", { cx: x(t), cy: y(v), r: 4, class: "dot" });
      const title = svg("title");
      title.textContent = `${stamp(t)}: ${Math.round(v * 10) / 10}`;
      dot.append(title);
      root.append(dot);
    }
  }
  return root;
}

// -- mood -----------------------------------------------------------------------------------------------

async function moodTab(pane) {
  const mood = await api("/api/mood", { params: { subject: state.subject, limit: 200 } });
  const events = [...mood.timeline].reverse();
  const points = events.map((e) => [e.at, e.value]);
  points.push([now(), mood.now.value]);
  pane.replaceChildren(
    el("p", { id: "mood-line" }, el("strong", { text: w("mood_now") + ": " }), mood.line),
    el("h3", { text: w("mood_chart") }),
    chart("mood-chart", points, { label: w("mood_chart") }),
    mood.timeline.length
      ? el("ul", { id: "mood-events", class: "plain" }, mood.timeline.map((e) => el("li", {},
        el("span", { class: "quiet", text: `${stamp(e.at)} ${e.delta >= 0 ? "+" : ""}${e.delta.toFixed(1)} → ${e.value.toFixed(1)} · ${e.judge} (${e.confidence.toFixed(2)}) ` }),
        e.reason, " ", el("span", { class: "quiet", text: Object.entries(e.emotions).map(([k, v]) => `${k} ${Math.round(v)}`).join(", ") }))))
      : el("p", { class: "quiet", text: w("no_changes") }),
  );
}

// -- relationship ---------------------------------------------------------------------------------------

async function relationTab(pane) {
  const found = await api("/api/relationship", { params: { subject: state.subject } });
  const current = found.relationship;
  const role = el("select", { id: "role" }, state.about.roles.map((r) => el("option", { value: r.key, text: `${r.label} (${r.floor}-${r.ceiling})`, selected: current && current.role === r.key })));
  const closeness = el("input", { id: "closeness", type: "number", min: 0, max: 100, step: 1, value: current ? current.closeness : "", placeholder: w("closeness") });
  const points = found.history.map((p) => [p.at, p.closeness]);
  if (current) points.push([now(), current.closeness]);
  pane.replaceChildren(
    el("p", { id: "relation-line", text: current ? `${w("role")}: ${current.role} · ${w("closeness")} ${current.closeness} · ${stamp(current.since)}` : w("no_role") }),
    el("form", { class: "row", onsubmit: (e) => (e.preventDefault(), guarded(async () => {
      await api("/api/relationship", { method: "PUT", body: { subject: state.subject, role: role.value, closeness: closeness.value === "" ? null : Number(closeness.value) } });
      await openPerson(state.subject);
      await loadPeople();
    })) }, role, closeness, el("button", { type: "submit", id: "relate", text: w("give_role") }),
    current ? el("button", { type: "button", class: "danger", text: w("remove_role"), onclick: () => guarded(async () => {
      await api("/api/relationship", { method: "DELETE", params: { subject: state.subject } });
      await openPerson(state.subject);
    }) }) : null),
    el("h3", { text: w("closeness_chart") }),
    chart("closeness-chart", points, { label: w("closeness_chart") }),
  );
}

// -- the recall log -------------------------------------------------------------------------------------

async function logTab(pane) {
  const entries = await api("/api/recalls", { params: { subject: state.subject, limit: 50 } });
  const looked = (items, mark) => items.map((n) => el("li", { class: mark }, el("span", { class: "quiet", text: `${mark === "chosen" ? "+" : "−"} #${n.id} ${n.why}: ` }), n.text || ""));
  pane.replaceChildren(entries.length
    ? el("ul", { id: "log", class: "plain" }, entries.map((e) => el("li", {},
      el("div", {}, el("span", { class: "quiet", text: stamp(e.at) + " " }), el("strong", { text: e.query || "—" })),
      el("ul", { class: "plain inner" }, looked(e.chosen, "chosen"), looked(e.skipped, "skipped")))))
    : el("p", { class: "quiet", text: w("no_log") }));
}

const TABS = { notes: notesTab, keys: keysTab, recall: recallTab, mood: moodTab, relation: relationTab, log: logTab };

// -- the health check and the settings ------------------------------------------------------------------

async function checkView(pane) {
  const findings = el("div", { id: "findings" });
  const run = (fix) => guarded(async () => {
    const found = await api("/api/check", fix ? { method: "POST", body: { fix: true } } : {});
    findings.replaceChildren(found.findings.length
      ? el("table", {}, el("tbody", {}, found.findings.map((f) => el("tr", {}, Object.entries(f).map(([k, v]) => el("td", {}, el("span", { class: "quiet", text: k + ": " }), typeof v === "object" ? JSON.stringify(v) : String(v)))))))
      : el("p", { text: w("no_findings") }));
  });
  const available = state.about.features.check;
  pane.replaceChildren(
    el("h2", { text: w("tab.check") }),
    available
      ? el("div", { class: "row" }, el("button", { type: "button", id: "check-run", text: w("run_check"), onclick: () => run(false) }), el("button", { type: "button", id: "check-fix", text: w("fix"), onclick: () => run(true) }))
      : el("p", { id: "check-unavailable", class: "quiet", text: w("check_unavailable") }),
    findings,
  );
}

async function configView(pane) {
  const shown = await api("/api/config");
  const key = el("input", { id: "config-key", placeholder: w("config_key") });
  const value = el("input", { id: "config-value", placeholder: w("config_value") });
  pane.replaceChildren(
    el("h2", { text: w("tab.config") }),
    el("form", { class: "row", onsubmit: (e) => (e.preventDefault(), guarded(async () => {
      const stored = await api("/api/config", { method: "PUT", body: { key: key.value, text: value.value } });
      say(`${stored.key} = ${JSON.stringify(stored.value)} · ${w("saved")}`);
      await configView(pane);
    })) }, key, value, el("button", { type: "submit", text: w("config_set") })),
    el("p", { class: "quiet", text: w("config_note") }),
    el("table", { id: "config" }, el("tbody", {}, shown.rows.map((r) => configRow(r, key, value)))),
  );
}

function configRow(row, key, value) {
  const shown = typeof row.value === "string" ? row.value : JSON.stringify(row.value);
  const pick = () => {
    key.value = row.key;
    value.value = shown;
  };
  return el("tr", { onclick: pick },
    el("td", {}, el("code", { text: row.key })), el("td", { class: "text", text: shown }), el("td", { class: "quiet", text: row.origin }));
}

const VIEWS = { people: null, check: checkView, config: configView };

// -- wiring ---------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("#views button")) {
    button.onclick = () => {
      for (const other of document.querySelectorAll("#views button")) other.classList.toggle("on", other === button);
      for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== "view-" + button.dataset.view;
      const show = VIEWS[button.dataset.view];
      if (show) guarded(() => show($("view-" + button.dataset.view)));
    };
  }
  for (const button of document.querySelectorAll("#tabs button")) button.onclick = () => showTab(button.dataset.tab);
  let typing;
  $("search").oninput = () => {
    clearTimeout(typing);
    typing = setTimeout(() => guarded(() => loadPeople()), 200);
  };
  $("people-more").onclick = () => guarded(() => loadPeople(true));
  $("space").onchange = () => guarded(async () => {
    state.space = $("space").value;
    state.subject = null;
    $("person").hidden = true;
    $("pick").hidden = false;
    await loadPeople();
  });
  $("erase").onclick = () => guarded(async () => {
    if (!confirm(w("erase_sure", { who: state.subject }))) return;
    await api("/api/person", { method: "DELETE", params: { subject: state.subject, yes: true } });
    state.subject = null;
    $("person").hidden = true;
    $("pick").hidden = false;
    await loadPeople();
  });
  guarded(start).then(() => document.body.setAttribute("data-ready", "1"));
});
