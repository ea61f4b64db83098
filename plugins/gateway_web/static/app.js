// agent-gateway approvals: the page. Plain JavaScript, no build step, no library.
//
// Safety rule for everything below: text that came from an agent, a plan, a
// rule or a person is only ever put into the page with createTextNode (through
// `el` and `safeText`), never with innerHTML; and every character that could
// hide or reorder what is shown (controls, \r, ANSI escapes, bidirectional
// and invisible Unicode, look-alike spaces) is shown as a visible escape.
"use strict";

(() => {
  const TOKEN_KEY = "agent-gateway.token";
  const HISTORY_PAGE = 50;
  const DECIDED_LIMIT = 2000;
  const ACTIVITY_LIMIT = 50;
  const EVENT_CALLS_LIMIT = 2000;
  // A stream that sends nothing for this long (the service sends a comment
  // every 15 s) is taken for dead and opened again.
  const SILENCE_MS = 45000;

  const state = {
    token: null,
    info: null,
    pending: new Map(), // board id -> entry
    decided: new Map(), // board id -> when it started waiting (decided since)
    historyItems: [], // the history pages shown, newest first (from the service)
    historyNext: null,
    historyTotal: 0,
    historyTicket: 0,
    instance: null, // the service run this page shows; a new one means it restarted
    events: new Map(), // call id -> Map(seq -> event)
    lastSeq: null,
    streaming: false,
    stopStream: null,
    // The board id of the open card: on a phone (style.css) the only one whose
    // detail and action bar show; the others show what they are about and a
    // button that opens them.
    open: null,
  };

  const $ = (id) => document.getElementById(id);

  // ───────────────────────── safe text ─────────────────────────

  const NAMED = new Map([
    [0x00, "\\0"], [0x07, "\\a"], [0x08, "\\b"], [0x09, "\\t"], [0x0b, "\\v"],
    [0x0c, "\\f"], [0x0d, "\\r"], [0x1b, "\\e"],
  ]);
  const NAMES = new Map([
    [0x0d, "CARRIAGE RETURN (can hide text typed before it)"],
    [0x1b, "ESCAPE (starts ANSI terminal sequences)"],
    [0x00a0, "NO-BREAK SPACE"], [0x00ad, "SOFT HYPHEN"], [0x061c, "ARABIC LETTER MARK"],
    [0x200b, "ZERO WIDTH SPACE"], [0x200c, "ZERO WIDTH NON-JOINER"], [0x200d, "ZERO WIDTH JOINER"],
    [0x200e, "LEFT-TO-RIGHT MARK"], [0x200f, "RIGHT-TO-LEFT MARK"],
    [0x202a, "LEFT-TO-RIGHT EMBEDDING"], [0x202b, "RIGHT-TO-LEFT EMBEDDING"],
    [0x202c, "POP DIRECTIONAL FORMATTING"], [0x202d, "LEFT-TO-RIGHT OVERRIDE"],
    [0x202e, "RIGHT-TO-LEFT OVERRIDE"], [0x2060, "WORD JOINER"],
    [0x2066, "LEFT-TO-RIGHT ISOLATE"], [0x2067, "RIGHT-TO-LEFT ISOLATE"],
    [0x2068, "FIRST STRONG ISOLATE"], [0x2069, "POP DIRECTIONAL ISOLATE"],
    [0xfeff, "ZERO WIDTH NO-BREAK SPACE"],
  ]);
  // Controls, format characters (bidi, zero-width), private use, unassigned,
  // lone surrogates, line/paragraph separators, every space but U+0020, and
  // characters that render as nothing (fillers, variation selectors).
  const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Zs}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;
  const PADDING = 12; // a run of this many spaces or more is shown as a count

  function escapeOf(char) {
    const code = char.codePointAt(0);
    if (NAMED.has(code)) return NAMED.get(code);
    if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
    return "\\u{" + code.toString(16).toUpperCase().padStart(4, "0") + "}";
  }

  // Append `text` to `parent`, escapes visible; returns how many were escaped.
  function appendSafe(parent, text, multiline) {
    let run = "";
    let escaped = 0;
    const flush = () => {
      if (run) parent.appendChild(document.createTextNode(run));
      run = "";
    };
    const chars = Array.from(String(text));
    for (let i = 0; i < chars.length; i += 1) {
      const char = chars[i];
      if (char === " ") {
        let j = i;
        while (j < chars.length && chars[j] === " ") j += 1;
        const count = j - i;
        if (count >= PADDING) {
          flush();
          const mark = el("span", { class: "esc pad", title: `${count} spaces` }, `␠×${count}`);
          parent.appendChild(mark);
          escaped += 1;
        } else {
          run += " ".repeat(count);
        }
        i = j - 1;
        continue;
      }
      if (char === "\n" && multiline) {
        run += "\n";
        continue;
      }
      if (char === "\n" || UNSAFE.test(char)) {
        flush();
        const code = char.codePointAt(0);
        const hex = "U+" + code.toString(16).toUpperCase().padStart(4, "0");
        const name = NAMES.get(code);
        parent.appendChild(
          el("span", { class: "esc", title: name ? `${hex} ${name}` : hex }, escapeOf(char)),
        );
        escaped += 1;
        continue;
      }
      run += char;
    }
    flush();
    return escaped;
  }

  // A code element showing `text` safely; counts escapes in `tally` if given.
  function code(text, { block = false, multiline = block, tally = null, className = "" } = {}) {
    const node = el(block ? "pre" : "code", { class: `code ${className}`.trim(), dir: "ltr" });
    const escaped = appendSafe(node, text, multiline);
    if (tally) tally.count += escaped;
    return node;
  }

  // ───────────────────────── DOM helpers ─────────────────────────

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "dataset") {
        for (const [key, data] of Object.entries(value)) node.dataset[key] = data;
      } else if (name === "on") {
        for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
      } else if (value === true) {
        node.setAttribute(name, "");
      } else {
        node.setAttribute(name, String(value));
      }
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function announce(text) {
    $("announce").textContent = text;
  }

  function setStatus(text, kind) {
    const status = $("status");
    status.textContent = text;
    status.dataset.kind = kind || "";
  }

  function value(planned) {
    // A PlannedValue: {"plain": "…"} or {"redacted": {"kind": …, "masked": …}}.
    if (!planned) return null;
    if (typeof planned.plain === "string") return { text: planned.plain, secret: null };
    if (planned.redacted) {
      const secret = planned.redacted;
      return { text: secret.masked || `<${secret.kind}>`, secret: secret.kind };
    }
    return null;
  }

  function valueNode(planned, tally, fallback) {
    const shown = value(planned);
    if (shown === null) {
      const span = el("span", { class: "word dynamic", title: "expands when it runs: not known now" });
      span.appendChild(code(fallback === undefined ? "?" : fallback, { tally }));
      span.appendChild(el("span", { class: "tag" }, "expands"));
      return span;
    }
    const span = el("span", { class: shown.secret ? "word secret" : "word" });
    span.appendChild(code(shown.text, { tally }));
    if (shown.secret) span.appendChild(el("span", { class: "tag" }, `secret: ${shown.secret}`));
    return span;
  }

  // ───────────────────────── the API ─────────────────────────

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    const used = state.token;
    if (used) headers.Authorization = `Bearer ${used}`;
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (!response.ok) {
      const message = data && typeof data.error === "string" ? data.error : `The service answered ${response.status}.`;
      // Ask for the token, unless the page asks already (keep what it says there).
      // A refusal of a token the person has replaced meanwhile asks nothing.
      if (response.status === 401 && $("token-panel").hidden && state.token === used) needToken(message);
      throw new ApiError(response.status, message);
    }
    return data;
  }

  // ───────────────────────── the token ─────────────────────────

  function loadToken() {
    const match = /^#token=([A-Za-z0-9_-]{16,200})$/.exec(location.hash);
    if (match) {
      sessionStorage.setItem(TOKEN_KEY, match[1]);
      history.replaceState(null, "", location.pathname + location.search);
    }
    state.token = sessionStorage.getItem(TOKEN_KEY);
    $("sign-out").hidden = !state.token;
  }

  function needToken(message) {
    $("token-panel").hidden = false;
    $("token-error").textContent = message || "";
    $("token-input").focus();
  }

  async function useToken(event) {
    event.preventDefault();
    const token = $("token-input").value.trim();
    if (!token) return;
    const response = await fetch("/v1/info", {
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      cache: "no-store",
      credentials: "omit",
    });
    const info = response.ok ? await response.json() : null;
    if (!info || info.authorized !== true) {
      $("token-error").textContent = "That token is not the one this service printed.";
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    state.token = token;
    state.info = info;
    $("token-input").value = "";
    $("token-panel").hidden = true;
    $("sign-out").hidden = false;
    announce("Signed in.");
    // What the page read without the token (the history, who decided) is read
    // again with it; an open event stream reconnects with it (its snapshot
    // brings the calls waiting now).
    if (state.streaming) {
      if (state.stopStream) state.stopStream();
      loadHistory();
    } else {
      start();
    }
  }

  function forgetToken() {
    sessionStorage.removeItem(TOKEN_KEY);
    state.token = null;
    $("sign-out").hidden = true;
    needToken("");
  }

  // ───────────────────────── events ─────────────────────────

  function remember(event) {
    if (!event.call_id) return;
    let events = state.events.get(event.call_id);
    if (!events) {
      events = new Map();
      state.events.set(event.call_id, events);
      if (state.events.size > EVENT_CALLS_LIMIT) {
        for (const key of state.events.keys()) {
          if (!isShown(key)) {
            state.events.delete(key);
            break;
          }
        }
      }
    }
    events.set(event.seq, event);
  }

  function isShown(callId) {
    for (const entry of state.pending.values()) if (entry.call_id === callId) return true;
    return false;
  }

  function eventsOf(entry) {
    const merged = new Map();
    for (const event of entry.events || []) merged.set(event.seq, event);
    for (const [seq, event] of state.events.get(entry.call_id) || []) merged.set(seq, event);
    return Array.from(merged.values()).sort((a, b) => a.seq - b.seq);
  }

  function onEvent(event) {
    remember(event);
    for (const entry of state.pending.values()) {
      if (entry.call_id === event.call_id) refreshCard(entry);
    }
    if (event.event === "verdict.reached" && !event.question) {
      addActivity(event);
      // An approval a person remembered decided it: the history shows it too.
      if (String(event.verdict.rule || "").startsWith("remembered.")) scheduleHistory();
    }
  }

  // ───────────────────────── rendering a plan ─────────────────────────

  function redirectNode(redirect, tally) {
    const kind = redirect.kind;
    const writes = kind.includes(">") && redirect.target !== null && !kind.includes(">&");
    const node = el("li", { class: writes ? "redirect write" : "redirect" });
    node.appendChild(el("span", { class: "op" }, kind));
    if (redirect.target) node.appendChild(valueNode(redirect.target, tally));
    if (writes) node.appendChild(el("span", { class: "tag warn" }, "writes a file"));
    if (redirect.inherited) node.appendChild(el("span", { class: "tag" }, "from the enclosing block"));
    return node;
  }

  function heredocNode(heredoc, tally) {
    const shown = value(heredoc.body);
    const kind = heredoc.literal
      ? "literal: the body is passed exactly as written"
      : "expanding: $ and ` in the body run before it is passed";
    const lines = shown ? shown.text.split("\n").length - 1 : 0;
    const summary = el(
      "summary",
      {},
      "Heredoc ",
      code(`<<${heredoc.strip_tabs ? "-" : ""}${heredoc.delimiter}`, { tally }),
      ` · ${lines} line${lines === 1 ? "" : "s"} · `,
      el("span", { class: heredoc.literal ? "tag" : "tag warn" }, heredoc.literal ? "literal" : "expanding"),
      heredoc.holes ? el("span", { class: "tag warn" }, `${heredoc.holes} hole${heredoc.holes === 1 ? "" : "s"}`) : null,
    );
    const body = el("div", { class: "heredoc-body" }, el("p", { class: "note" }, kind));
    body.appendChild(code(shown ? shown.text : "", { block: true, tally }));
    if (heredoc.free_variables && heredoc.free_variables.length) {
      body.appendChild(el("p", { class: "note" }, "Reads variables: ", code(heredoc.free_variables.join(" "), { tally })));
    }
    return el("details", { class: heredoc.literal ? "heredoc" : "heredoc expanding" }, summary, body);
  }

  function programNode(position, tally) {
    const node = el("div", { class: "program" });
    const chain = el("span", { class: "chain" });
    for (const word of position.control_words || []) {
      chain.appendChild(el("span", { class: "launcher control" }, code(word, { tally })));
      chain.appendChild(el("span", { class: "arrow", "aria-hidden": "true" }, "→"));
    }
    for (const launcher of position.launchers || []) {
      chain.appendChild(el("span", { class: "launcher", title: "launcher" }, code(launcher.name, { tally })));
      chain.appendChild(el("span", { class: "arrow", "aria-hidden": "true" }, "→"));
    }
    if (position.program) {
      const program = position.program;
      const main = el("strong", { class: "runs" }, code(program.basename, { tally }));
      chain.appendChild(main);
      if (program.name !== program.basename) {
        chain.appendChild(el("span", { class: "note" }, " as ", code(program.name, { tally })));
      }
    } else {
      chain.appendChild(el("strong", { class: "runs unknown" }, "no program can be read"));
    }
    node.appendChild(el("span", { class: "label" }, "Runs "));
    node.appendChild(chain);
    if (position.runs_shell) node.appendChild(el("span", { class: "tag warn" }, "runs shell text"));
    if (position.argv_from_stdin) node.appendChild(el("span", { class: "tag warn" }, "arguments come from standard input"));
    if (position.runs_default_program) node.appendChild(el("span", { class: "tag" }, "launcher's default program"));
    if (position.reason) node.appendChild(el("p", { class: "warning" }, code(position.reason, { tally })));
    return node;
  }

  function commandNode(command, tally, depth) {
    const node = el("li", { class: "command" });
    node.appendChild(programNode(command.position || {}, tally));
    const badges = el("div", { class: "badges" });
    if (command.context && command.context !== "command") {
      const where = {
        substitution: "inside a $( ) substitution",
        process_substitution: "inside a process substitution",
        heredoc: "a hole of a heredoc body",
        function: "in a function body (runs only if called)",
      }[command.context] || command.context;
      badges.appendChild(el("span", { class: "tag" }, where));
    }
    if (command.background) badges.appendChild(el("span", { class: "tag warn" }, "runs in the background"));
    for (const kind of command.expansions || []) badges.appendChild(el("span", { class: "tag" }, `expansion: ${kind}`));
    if (command.fed_by && command.fed_by.length) {
      badges.appendChild(el("span", { class: "tag" }, "reads the output of ", code(command.fed_by.join(" | "), { tally })));
    }
    if (badges.childNodes.length) node.appendChild(badges);
    if (command.assignments && command.assignments.length) {
      const list = el("div", { class: "argv" }, el("span", { class: "label" }, "Sets "));
      for (const assignment of command.assignments) {
        list.appendChild(el("span", { class: "word" }, code(`${assignment.name}=`, { tally }), valueNode(assignment.value, tally)));
      }
      node.appendChild(list);
    }
    const argv = el("div", { class: "argv" }, el("span", { class: "label" }, "Words "));
    const words = command.argv && command.argv.length ? command.argv : [{ plain: command.name }];
    words.forEach((word, index) => {
      const written = index === 0 ? command.name : value((command.args || [])[index - 1]);
      argv.appendChild(valueNode(word, tally, written && written.text !== undefined ? written.text : written));
    });
    node.appendChild(argv);
    if (command.redirects && command.redirects.length) {
      node.appendChild(el("ul", { class: "redirects", "aria-label": "Redirects" }, command.redirects.map((r) => redirectNode(r, tally))));
    }
    for (const heredoc of command.heredocs || []) node.appendChild(heredocNode(heredoc, tally));
    for (const nested of command.nested || []) node.appendChild(nestedNode(nested, tally, depth));
    return node;
  }

  function nestedNode(nested, tally, depth) {
    const node = el("div", { class: `nested ${nested.status}` });
    node.appendChild(el("p", {}, "Launches via ", code(nested.via, { tally }), " ",
      el("span", { class: nested.status === "measured" ? "tag" : "tag warn" }, nested.status)));
    if (nested.text) node.appendChild(valueNode(nested.text, tally));
    if (nested.reason) node.appendChild(el("p", { class: "warning" }, code(nested.reason, { tally })));
    if (depth < 6 && nested.plans && nested.plans.length) {
      node.appendChild(plansNode(nested.plans, tally, depth + 1));
    }
    return node;
  }

  function plansNode(plans, tally, depth) {
    const list = el("ol", { class: "statements" });
    plans.forEach((plan, index) => {
      const item = el("li", { class: "statement" });
      item.appendChild(el("p", { class: "statement-head" }, `Statement ${index + 1} · ${plan.statement_kind.replace("_", " ")}`));
      item.appendChild(code(plan.rendered, { block: true, tally }));
      item.appendChild(el("ul", { class: "commands" }, (plan.commands || []).map((c) => commandNode(c, tally, depth))));
      list.appendChild(item);
    });
    return list;
  }

  function holesNode(holes, tally) {
    const section = el("section", { class: "holes" }, el("h4", {}, "Questions: heredoc holes"));
    section.appendChild(el("p", { class: "note" }, "Each $( ) in an expanding heredoc body runs before the body is known; each is a question of its own."));
    const list = el("ol", {});
    for (const { ref, hole } of holes) {
      const item = el("li", { class: "hole" });
      item.appendChild(el("p", {}, `Statement ${ref.statement + 1}, heredoc ${ref.heredoc + 1}, hole ${ref.hole + 1}: may `, code(hole.source, { tally }), " run?"));
      item.appendChild(plansNode(hole.plans || [], tally, 1));
      list.appendChild(item);
    }
    section.appendChild(list);
    return section;
  }

  function approvalsNode(events, tally) {
    const answers = events.filter((e) => e.event === "approver.decided" || e.event === "approver.failed");
    const section = el("section", { class: "approvals", "aria-label": "What the approvers said" });
    if (!answers.length) {
      section.appendChild(el("p", { class: "note" }, "No approver has answered yet."));
      return section;
    }
    const list = el("ul", {});
    for (const answer of answers) {
      const decision = answer.event === "approver.failed" ? "failed" : answer.decision;
      const label = decision === "abstain" ? "asks a person" : decision;
      const item = el("li", { class: `answer ${decision}` },
        el("strong", {}, code(answer.approver, { tally })), " ",
        el("span", { class: `badge ${decision}` }, label),
        answer.rule ? el("span", { class: "rule" }, " rule ", code(answer.rule, { tally })) : null,
        answer.question ? el("span", { class: "tag" }, `hole ${answer.question.statement + 1}.${answer.question.heredoc + 1}.${answer.question.hole + 1}`) : null);
      if (answer.reason) item.appendChild(el("span", { class: "reason" }, " ", code(answer.reason, { tally })));
      if (answer.note) item.appendChild(el("span", { class: "note" }, " ", code(answer.note, { tally })));
      list.appendChild(item);
    }
    section.appendChild(list);
    return section;
  }

  // The programs that really run, one line: `sudo → env → cat, sh`.
  function runsLine(plans, tally) {
    const line = el("p", { class: "runs-line" }, el("span", { class: "label" }, "Runs "));
    let first = true;
    for (const plan of plans) {
      for (const command of plan.commands || []) {
        const position = command.position || {};
        if (!first) line.appendChild(document.createTextNode(", "));
        first = false;
        for (const launcher of position.launchers || []) {
          line.appendChild(el("span", { class: "launcher" }, code(launcher.name, { tally })));
          line.appendChild(el("span", { class: "arrow", "aria-hidden": "true" }, " → "));
        }
        line.appendChild(position.program
          ? el("strong", { class: "runs" }, code(position.program.basename, { tally }))
          : el("strong", { class: "runs unknown" }, "no program can be read"));
      }
    }
    return first ? null : line;
  }

  // The texts a person must read (the command, a hole, a heredoc body) stay in
  // view; how it runs, statement by statement, opens on demand.
  function requestNode(entry, tally) {
    const request = entry.request;
    const container = el("div", { class: "plan" });
    const plan = request.plan;
    const trees = [];
    if (request.kind === "body") {
      container.appendChild(el("h4", {}, "The heredoc body, completed from the holes' output"));
      container.appendChild(code(request.body || "", { block: true, tally, className: "command-text" }));
      if (request.body_plan) trees.push(request.body_plan.statements.map((s) => s.plan));
    }
    if (request.kind === "hole" && request.hole) {
      container.appendChild(el("h4", {}, "The question: may this hole run?"));
      container.appendChild(code(request.hole.source, { block: true, tally, className: "command-text" }));
      trees.push(request.hole.plans || []);
    }
    if (request.kind !== "call") container.appendChild(el("h4", {}, "The whole call"));
    if (plan) {
      container.appendChild(code(plan.source, { block: true, tally, className: "command-text" }));
      if (plan.status !== "measured") {
        container.appendChild(el("p", { class: "warning" }, "Could not be read with confidence: ", code(plan.reason || "unmeasured", { tally })));
      } else {
        trees.push(plan.statements.map((s) => s.plan));
      }
    } else {
      container.appendChild(el("p", { class: "note" }, "A tool that is not a shell: its name and arguments."));
      container.appendChild(code(JSON.stringify(request.call.input, null, 2), { block: true, tally, className: "command-text" }));
    }
    const all = trees.flat();
    const runs = runsLine(all, tally);
    if (runs) container.appendChild(runs);
    if (all.length) {
      const count = `${all.length} statement${all.length === 1 ? "" : "s"}`;
      const details = el("details", { class: "plan-tree" },
        el("summary", {}, `How it runs: ${count}, program by program`));
      for (const plans of trees) details.appendChild(plansNode(plans, tally, 0));
      details.appendChild(el("p", { class: "digest" }, "Plan digest ", code(entry.digest, {})));
      container.appendChild(details);
    } else {
      container.appendChild(el("p", { class: "digest" }, "Plan digest ", code(entry.digest, {})));
    }
    return container;
  }

  // ───────────────────────── cards ─────────────────────────

  function remaining(deadline) {
    const seconds = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    const minutes = Math.floor(seconds / 60);
    return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
  }

  // What the call would do, in one sentence, writes first (the service says
  // it from the plan's effects); `code` spans are shown as code, safely.
  function summaryNode(sentence, tally) {
    return sentenceInto(el("p", { class: "summary" }), sentence, tally);
  }

  // A sentence into `node`, its `code` spans shown as code, everything safely.
  function sentenceInto(node, sentence, tally) {
    String(sentence || "").split("`").forEach((part, index) => {
      if (index % 2) node.appendChild(code(part, { tally }));
      else appendSafe(node, part, false);
    });
    return node;
  }

  // Where the call comes from, on one line (whose it is: in the card's head).
  function metaNode(entry, tally) {
    const call = entry.request.call;
    const meta = el("p", { class: "meta" });
    const add = (name, text) => {
      if (text === null || text === undefined || text === "") return;
      meta.appendChild(el("span", { class: "fact" }, `${name} `, code(text, { tally })));
    };
    add("call", entry.call_id);
    add("in", call.cwd);
    add("host", call.host);
    return meta;
  }

  const SCOPE_LABELS = { digest: "This exact command, anywhere", session: "This exact command, in this session" };

  function offerLabel(offer) {
    if (offer.scope === "prefix") return `\`${[offer.program, ...(offer.prefix || [])].join(" ")}\` followed by anything`;
    return SCOPE_LABELS[offer.scope] || offer.scope;
  }

  function decisionForm(entry) {
    const form = el("form", { class: "decide", "aria-label": "Decision" });
    const offers = entry.offers || [];
    const selectId = `scope-${entry.id}`;
    const covers = el("div", { class: "covers", "aria-live": "polite" });
    if (entry.kind === "call") {
      const scopes = el("div", { class: "scopes" });
      scopes.appendChild(el("label", { for: selectId }, "Remember this allow"));
      const select = el("select", { id: selectId, name: "scope" },
        el("option", { value: "once" }, "No: just this call"),
        offers.map((offer, index) => el("option", { value: String(index) }, offerLabel(offer))));
      if (!offers.length) select.disabled = true;
      scopes.appendChild(select);
      form.appendChild(scopes);
      if (!offers.length) {
        covers.appendChild(el("p", { class: "note" }, state.info && state.info.remembers
          ? "The rules approver offers nothing to remember for this call."
          : "No rules approver is running, so approvals cannot be remembered."));
      }
      form.appendChild(covers);
    }
    const noteId = `note-${entry.id}`;
    form.appendChild(el("label", { for: noteId, class: "note-label" }, "Note (kept with the decision; say why when you decline)"));
    form.appendChild(el("textarea", { id: noteId, name: "note", rows: "1", maxlength: "1000", spellcheck: "true" }));
    // The buttons are the card's own bar, kept in view (sticky) while any of
    // the card is on screen: at phone width they never sit below its plan.
    const buttons = el("div", { class: "buttons", role: "group", "aria-label": "Decide" },
      el("button", { type: "button", class: "allow", dataset: { action: "allow" } }, "Allow"),
      el("button", { type: "button", class: "decline", dataset: { action: "decline" } }, "Decline"),
      el("p", { class: "error", role: "alert" }));
    const chosenOffer = () => {
      const select = form.querySelector("select");
      return select && select.value !== "once" ? offers[Number(select.value)] : null;
    };
    // What the chosen width covers, and what it never does, before anything is saved.
    const showCovers = () => {
      if (!offers.length) return;
      const offer = chosenOffer();
      buttons.querySelector(".allow").textContent = offer ? "Allow and remember" : "Allow";
      if (!offer) {
        covers.replaceChildren();
        return;
      }
      const tally = { count: 0 };
      const list = el("ul", {}, (offer.covers || []).map((clause) => sentenceInto(el("li", {}), clause, tally)));
      covers.replaceChildren(sentenceInto(el("p", { class: "chosen" }), offer.description, tally), list);
    };
    const submit = (decision) => {
      const note = form.querySelector("textarea").value.trim();
      decide(entry, decision, decision === "allow" ? chosenOffer() : null, note, buttons);
    };
    // Nothing submits by itself (no Enter-to-allow): only the buttons decide.
    form.addEventListener("submit", (event) => event.preventDefault());
    buttons.querySelector(".allow").addEventListener("click", () => submit("allow"));
    buttons.querySelector(".decline").addEventListener("click", () => submit("decline"));
    form.addEventListener("change", showCovers);
    return [form, buttons];
  }

  function cardNode(entry) {
    const tally = { count: 0 };
    const titleId = `title-${entry.id}`;
    const card = el("li", { class: "card", tabindex: "-1", dataset: { id: entry.id, callId: entry.call_id }, "aria-labelledby": titleId });
    const what = { call: "Call", hole: "Hole question", body: "Heredoc body" }[entry.kind] || entry.kind;
    const head = el("header", { class: "card-head" },
      el("h3", { id: titleId }, `${what} · `, code(entry.request.call.tool, {})),
      el("span", { class: "deadline", dataset: { deadline: entry.deadline } }, `declined in ${remaining(entry.deadline)}`));
    // Whose call it is, up front: cards of one session or agent read together.
    const call = entry.request.call;
    if (call.session_id || call.agent_id) {
      const who = el("p", { class: "who" });
      if (call.session_id) who.appendChild(el("span", { class: "fact" }, "session ", code(call.session_id, { tally })));
      if (call.agent_id) who.appendChild(el("span", { class: "fact" }, "agent ", code(call.agent_id, { tally })));
      head.appendChild(who);
    }
    card.appendChild(head);
    card.appendChild(summaryNode(entry.summary, tally));
    const warnings = el("div", { class: "warnings" });
    card.appendChild(warnings);
    card.appendChild(requestNode(entry, tally));
    card.appendChild(metaNode(entry, tally));
    const events = eventsOf(entry);
    const holes = events.filter((e) => e.event === "hole.question").map((e) => ({ ref: e.ref, hole: e.hole }));
    const live = el("div", { class: "live" });
    if (holes.length) live.appendChild(holesNode(holes, tally));
    live.appendChild(approvalsNode(events, tally));
    card.appendChild(live);
    for (const part of decisionForm(entry)) card.appendChild(part);
    // On a phone a card that is not open shows only what it is about, and this.
    card.appendChild(el("button", { type: "button", class: "open-card", on: { click: () => openCard(entry.id, true) } }, "Review this call"));
    if (tally.count) {
      warnings.appendChild(el("p", { class: "warning spoof", role: "note" },
        `${tally.count} hidden or control character${tally.count === 1 ? " is" : "s are"} shown as escapes (like \\r or \\u{202E}); they may try to make the command look like something else.`));
    }
    return card;
  }

  // Open one card (on a phone the others close, so one action bar shows at a time).
  function openCard(id, focus) {
    state.open = id;
    for (const card of $("pending").children) {
      const open = card.dataset.id === id;
      card.classList.toggle("open", open);
      card.setAttribute("aria-expanded", open ? "true" : "false");
      if (open && focus) {
        card.focus();
        card.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // Keep one card open: the one that was, else the first waiting.
  function keepOneOpen() {
    if (state.open && findCard(state.open)) {
      openCard(state.open, false);
      return;
    }
    const first = $("pending").firstElementChild;
    if (first) openCard(first.dataset.id, false);
    else state.open = null;
  }

  function refreshCard(entry) {
    const card = findCard(entry.id);
    if (!card) return;
    const tally = { count: 0 };
    const events = eventsOf(entry);
    const holes = events.filter((e) => e.event === "hole.question").map((e) => ({ ref: e.ref, hole: e.hole }));
    const live = el("div", { class: "live" });
    if (holes.length) live.appendChild(holesNode(holes, tally));
    live.appendChild(approvalsNode(events, tally));
    card.querySelector(".live").replaceWith(live);
  }

  function findCard(id) {
    for (const card of $("pending").children) if (card.dataset.id === id) return card;
    return null;
  }

  function updateCounts() {
    $("pending-count").textContent = String(state.pending.size);
    $("pending-empty").hidden = state.pending.size > 0;
    document.title = state.pending.size ? `(${state.pending.size}) agent-gateway · approvals` : "agent-gateway · approvals";
  }

  function upsertPending(entry) {
    if (state.decided.get(entry.id) === entry.created) return;
    const known = state.pending.get(entry.id);
    state.pending.set(entry.id, entry);
    for (const event of entry.events || []) remember(event);
    if (known && known.created === entry.created && findCard(entry.id)) {
      refreshCard(entry);
      return;
    }
    const card = cardNode(entry);
    const old = findCard(entry.id);
    if (old) old.replaceWith(card);
    else $("pending").appendChild(card);
    keepOneOpen();
    updateCounts();
    if (!known) announce(`A call waits for you: ${entry.request.call.tool}.`);
  }

  function movedToHistory(id) {
    const pending = state.pending.get(id);
    if (pending) rememberDecided(id, pending.created);
    state.pending.delete(id);
    const card = findCard(id);
    if (card) {
      const focused = card.contains(document.activeElement);
      const next = card.nextElementSibling || card.previousElementSibling;
      card.remove();
      if (state.open === id) state.open = next ? next.dataset.id : null;
      if (focused) (next || $("pending-title")).focus();
    }
    keepOneOpen();
    updateCounts();
    scheduleHistory();
  }

  function rememberDecided(id, created) {
    state.decided.delete(id);
    state.decided.set(id, created);
    while (state.decided.size > DECIDED_LIMIT) state.decided.delete(state.decided.keys().next().value);
  }

  // ───────────────────────── the history (from the service) ─────────────────────────

  const FILTERS = ["q", "session", "agent", "decision", "rule", "person"];

  function historyQuery(cursor) {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = $(`filter-${name}`).value.trim();
      if (value) params.set(name, value);
    }
    params.set("limit", String(HISTORY_PAGE));
    if (cursor) params.set("cursor", cursor);
    return `/v1/history?${params}`;
  }

  let historyTimer = null;
  function scheduleHistory() {
    if (historyTimer) clearTimeout(historyTimer);
    historyTimer = setTimeout(() => { historyTimer = null; loadHistory(); }, 200);
  }

  async function loadHistory(more) {
    const ticket = (state.historyTicket += 1);
    let page;
    try {
      page = await api("GET", historyQuery(more ? state.historyNext : null));
    } catch (failure) {
      if (ticket !== state.historyTicket) return;
      $("history-empty").hidden = false;
      $("history-empty").textContent = failure.status === 401
        ? "The history needs the token: sign in to see who decided what."
        : `The history could not be read: ${failure.message}`;
      return;
    }
    if (ticket !== state.historyTicket) return; // A newer query answered or will.
    if (page.instance && state.instance && page.instance !== state.instance) {
      restarted({ instance: page.instance });
      return;
    }
    state.historyItems = more ? state.historyItems.concat(page.items) : page.items.slice();
    state.historyNext = page.next;
    state.historyTotal = page.total;
    for (const item of page.items) rememberDecided(item.id, item.created);
    fillFacet("session", page.sessions);
    fillFacet("agent", page.agents);
    fillFacet("rule", page.rules);
    fillFacet("person", page.people);
    renderHistory();
  }

  function fillFacet(name, facets) {
    const select = $(`filter-${name}`);
    const chosen = select.value;
    const options = [el("option", { value: "" }, "all")];
    let present = false;
    for (const facet of facets || []) {
      present = present || facet.value === chosen;
      options.push(el("option", { value: facet.value }, `${facet.value} (${facet.count})`));
    }
    if (chosen && !present) options.push(el("option", { value: chosen }, `${chosen} (0)`));
    select.replaceChildren(...options);
    select.value = chosen;
  }

  function renderHistory() {
    const items = state.historyItems;
    const groupBy = $("history-group").value;
    const filtered = FILTERS.some((name) => $(`filter-${name}`).value.trim());
    const container = $("history");
    if (!groupBy) {
      container.replaceChildren(el("ol", { class: "history" }, items.map(historyNode)));
    } else {
      const groups = new Map();
      for (const item of items) {
        const key = item[groupBy] || "";
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(item);
      }
      const label = groupBy === "session" ? "Session" : "Agent";
      container.replaceChildren(...Array.from(groups, ([key, members]) => {
        const tally = { count: 0 };
        const title = el("h3", { class: "group-title" }, `${label} `,
          key ? code(key, { tally }) : el("em", {}, "none named"), ` · ${members.length}`);
        return el("section", { class: "group", dataset: { group: key } }, title,
          el("ol", { class: "history" }, members.map(historyNode)));
      }));
    }
    const empty = $("history-empty");
    empty.hidden = items.length > 0;
    empty.textContent = filtered ? "No decision matches these filters." : "No decisions yet.";
    $("history-count").textContent = String(state.historyTotal);
    $("history-more").hidden = !state.historyNext;
  }

  function auditHref(callId) {
    return `/v1/audit?call=${encodeURIComponent(callId)}`;
  }

  const NOBODY = {
    timeout: "nobody decided in time",
    cancelled: "the review was abandoned",
    closed: "the service stopped",
    overload: "too many calls waited",
    unreachable: "the board could not be reached",
  };

  // One decided call: what it would do, who decided, when, with what note.
  function historyNode(item) {
    const record = item.decision || {};
    const tally = { count: 0 };
    const decision = record.decision || "?";
    const memory = (item.rules || []).find((rule) => rule.startsWith("remembered."));
    const who = record.by === "person"
      ? el("span", { class: "by" }, "by ", el("strong", { class: "person" }, code(record.decided_by || "a person", { tally })))
      : record.by === "remembered"
        ? el("span", { class: "by" }, "by a remembered approval ", code(memory || "", { tally }))
        : el("span", { class: "by" }, NOBODY[record.by] || String(record.by));
    const when = record.decided ? new Date(record.decided) : null;
    const node = el("li", { class: `decided ${decision}`, dataset: { id: item.id, callId: item.call_id } },
      el("p", { class: "decided-head" },
        el("span", { class: `badge ${decision}` }, decision), " ", who, " ",
        el("time", { datetime: record.decided || "", title: record.decided || "" }, when ? when.toLocaleString() : "")));
    node.appendChild(summaryNode(item.summary, tally));
    node.appendChild(code(item.text, { tally, className: "one-line" }));
    if (record.note) node.appendChild(el("p", { class: "decided-note" }, "Note: ", code(record.note, { tally })));
    const facts = el("p", { class: "facts" });
    const fact = (name, text) => {
      if (!text) return;
      facts.appendChild(el("span", { class: "fact" }, `${name} `, code(text, { tally })));
    };
    fact("session", item.session);
    fact("agent", item.agent);
    fact("tool", item.tool);
    for (const rule of item.rules || []) fact("rule", rule);
    node.appendChild(facts);
    if (record.scope && record.scope !== "once") {
      node.appendChild(el("p", { class: "note" }, `Asked to remember: ${record.scope}. `,
        record.remembered ? code(record.remembered, { tally }) : code(record.remember_error || "", { tally })));
    }
    if (record.reason) node.appendChild(el("p", { class: "reason" }, code(record.reason, { tally })));
    const details = el("p", { class: "note" }, "Digest ", code(item.digest || "", {}));
    if (state.info && state.info.audit) {
      details.appendChild(document.createTextNode(" · "));
      details.appendChild(auditLink(auditHref(item.call_id), "audit records"));
    }
    node.appendChild(details);
    if (tally.count) {
      node.appendChild(el("p", { class: "warning spoof", role: "note" },
        `${tally.count} hidden or control character${tally.count === 1 ? " is" : "s are"} shown as escapes.`));
    }
    return node;
  }

  function addActivity(event) {
    const verdict = event.verdict;
    const events = state.events.get(event.call_id);
    let text = "";
    if (events) {
      for (const earlier of events.values()) {
        if (earlier.event === "plan.ready" && earlier.plan) text = earlier.plan.source;
        else if (earlier.event === "call.proposed" && !text) text = `${earlier.tool} ${JSON.stringify(earlier.input)}`;
      }
    }
    const tally = { count: 0 };
    const item = el("li", { class: `activity-item ${verdict.decision}` },
      el("span", { class: `badge ${verdict.decision}` }, verdict.decision), " ",
      verdict.approver ? el("span", { class: "by" }, "by ", code(verdict.approver, {})) : null,
      verdict.rule ? el("span", { class: "by" }, " rule ", code(verdict.rule, { tally })) : null,
      code(text, { tally, className: "one-line" }),
      el("p", { class: "reason" }, code(verdict.reason, { tally })));
    const list = $("activity");
    list.insertBefore(item, list.firstChild);
    while (list.children.length > ACTIVITY_LIMIT) list.lastChild.remove();
    $("activity-empty").hidden = true;
  }

  function auditLink(href, label) {
    return guardAuditLink(el("a", { href, target: "_blank", rel: "noopener noreferrer" }, label));
  }

  function guardAuditLink(link) {
    const href = link.getAttribute("href");
    link.addEventListener("click", (event) => {
      if (!(state.info && state.info.protect_reads)) return;
      // Reads need the token: fetch with it and show the text from a blob.
      event.preventDefault();
      fetch(href, { headers: { Authorization: `Bearer ${state.token}` }, cache: "no-store", credentials: "omit" })
        .then((response) => (response.ok ? response.blob() : Promise.reject(new Error(String(response.status)))))
        .then((blob) => window.open(URL.createObjectURL(new Blob([blob], { type: "text/plain" })), "_blank", "noopener"))
        .catch(() => announce("The audit log could not be read."));
    });
    return link;
  }

  // ───────────────────────── deciding ─────────────────────────

  async function decide(entry, decision, offer, note, bar) {
    const error = bar.querySelector(".error");
    error.textContent = "";
    if (!state.token) {
      needToken("Deciding needs the token.");
      return;
    }
    const body = { decision, digest: entry.digest };
    if (offer) {
      body.scope = offer.scope;
      if (offer.scope === "prefix") body.prefix = offer.prefix;
    }
    if (note) body.note = note;
    const buttons = bar.querySelectorAll("button");
    buttons.forEach((button) => { button.disabled = true; });
    try {
      const answer = await api("POST", `/v1/calls/${encodeURIComponent(entry.id)}/decision`, body);
      announce(`${decision === "allow" ? "Allowed" : "Declined"}.`);
      movedToHistory(entry.id);
    } catch (failure) {
      error.textContent = failure.message;
      if (failure.status === 409 || failure.status === 404) {
        try {
          const fresh = await api("GET", `/v1/calls/${encodeURIComponent(entry.id)}`);
          if (fresh.state === "decided") movedToHistory(entry.id);
          else upsertPending(fresh);
        } catch (ignored) {
          // The call is gone; the stream will say so.
        }
      }
    } finally {
      buttons.forEach((button) => { button.disabled = false; });
    }
  }

  // ───────────────────────── the stream ─────────────────────────

  function handleBlock(block) {
    let id = null;
    let kind = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let rest = colon < 0 ? "" : line.slice(colon + 1);
      if (rest.startsWith(" ")) rest = rest.slice(1);
      if (field === "id") id = rest;
      else if (field === "event") kind = rest;
      else if (field === "data") data.push(rest);
    }
    if (!data.length) return;
    const payload = JSON.parse(data.join("\n"));
    if (kind === "message") {
      if (id !== null) state.lastSeq = Number(id);
      onEvent(payload);
    } else if (kind === "snapshot") {
      if (payload.instance && state.instance && payload.instance !== state.instance) {
        // Another run of the service: what this page knew is gone. Start over.
        restarted({ instance: payload.instance });
        if (state.stopStream) state.stopStream();
        return;
      }
      if (payload.instance) state.instance = payload.instance;
      if (state.lastSeq === null) state.lastSeq = payload.seq;
      const ids = new Set(payload.pending.map((entry) => entry.id));
      for (const id2 of Array.from(state.pending.keys())) if (!ids.has(id2)) movedToHistory(id2);
      payload.pending.forEach(upsertPending);
      setStatus("Live", "live");
      loadHistory();
    } else if (kind === "pending") {
      upsertPending(payload);
    } else if (kind === "decided") {
      rememberDecided(payload.id, (state.pending.get(payload.id) || {}).created);
      movedToHistory(payload.id);
    } else if (kind === "gap") {
      state.lastSeq = null;
      if (state.stopStream) state.stopStream();
    }
  }

  // The service restarted (a new instance id): every call this page showed
  // as waiting was declined when the old one stopped, its events and history
  // are gone. Drop all of it, say so, and show what the new one has.
  async function restarted(info) {
    const waited = state.pending.size;
    state.instance = info.instance;
    for (const card of Array.from($("pending").children)) card.remove();
    state.pending.clear();
    state.events.clear();
    state.decided.clear();
    state.lastSeq = null;
    state.historyItems = [];
    state.historyNext = null;
    state.historyTotal = 0;
    $("activity").replaceChildren();
    $("activity-empty").hidden = false;
    renderHistory();
    updateCounts();
    const at = new Date().toLocaleTimeString();
    const lost = waited
      ? ` The ${waited === 1 ? "call" : `${waited} calls`} it showed as waiting ${waited === 1 ? "was" : "were"} declined when the old service stopped.`
      : "";
    const text = `The service restarted (noticed at ${at}); this page now shows the new one.${lost}`;
    const notice = $("service-notice");
    notice.textContent = text;
    notice.hidden = false;
    announce(text);
    scheduleHistory();
    // Ask the new run who this token is, and drop it only if it is still the
    // token it was asked about (the person may have pasted the new one meanwhile).
    const used = state.token;
    const fresh = await api("GET", "/v1/info").catch(() => null);
    if (!fresh || fresh.instance !== state.instance) return;
    state.info = fresh;
    if (state.token && state.token === used && fresh.authorized === false) {
      // The old run's token: drop it, and ask for the new run's.
      sessionStorage.removeItem(TOKEN_KEY);
      state.token = null;
      $("sign-out").hidden = true;
      needToken("The service restarted with a new token: paste the one it printed now.");
    }
  }

  // Before reconnecting: is it still the same run of the service?
  async function sameService() {
    let info;
    try {
      info = await api("GET", "/v1/info");
    } catch (failure) {
      setStatus("The service does not answer; retrying…", "error");
      return false;
    }
    if (state.instance && info.instance !== state.instance) await restarted(info);
    else state.info = info;
    state.instance = info.instance;
    return true;
  }

  async function stream() {
    if (state.streaming) return;
    state.streaming = true;
    let delay = 500;
    let first = true;
    while (state.streaming) {
      const controller = new AbortController();
      state.stopStream = () => controller.abort();
      let silence = null;
      const quiet = () => {
        if (silence) clearTimeout(silence);
        silence = setTimeout(() => controller.abort(), SILENCE_MS);
      };
      try {
        if (!first && !(await sameService())) throw new Error("unreachable");
        first = false;
        const headers = { Accept: "text/event-stream" };
        if (state.token) headers.Authorization = `Bearer ${state.token}`;
        if (state.lastSeq !== null) headers["Last-Event-ID"] = String(state.lastSeq);
        const response = await fetch("/v1/events", { headers, cache: "no-store", credentials: "omit", signal: controller.signal });
        if (response.status === 401) {
          state.streaming = false;
          needToken("Reading this service needs the token.");
          setStatus("Needs the token", "error");
          return;
        }
        if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
        delay = 500;
        quiet();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value: chunk, done } = await reader.read();
          if (done) break;
          quiet();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            handleBlock(block);
          }
        }
      } catch (failure) {
        // Reconnect below, resuming from the last sequence number.
      } finally {
        if (silence) clearTimeout(silence);
      }
      first = false;
      setStatus("Reconnecting…", "error");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 8000);
    }
  }

  // ───────────────────────── keys ─────────────────────────

  function onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
    const cards = Array.from($("pending").children);
    if (!cards.length) return;
    const current = cards.find((card) => card.contains(document.activeElement));
    const index = current ? cards.indexOf(current) : -1;
    if (event.key === "j" || event.key === "k") {
      const next = event.key === "j" ? Math.min(index + 1, cards.length - 1) : Math.max(index - 1, 0);
      openCard(cards[next].dataset.id, true);
      event.preventDefault();
    } else if (event.key === "a" && current) {
      current.querySelector('button[data-action="allow"]').click();
      event.preventDefault();
    } else if (event.key === "d" && current) {
      current.querySelector("textarea").focus();
      event.preventDefault();
    }
  }

  // ───────────────────────── start ─────────────────────────

  async function start() {
    try {
      state.info = await api("GET", "/v1/info");
    } catch (failure) {
      setStatus("The service does not answer", "error");
      setTimeout(start, 3000);
      return;
    }
    state.instance = state.info.instance || null;
    if (state.info.audit) $("audit-link").hidden = false;
    if (state.info.protect_reads && !state.token) {
      needToken("");
      setStatus("Needs the token", "error");
      return;
    }
    if (!state.info.human) setStatus("No human approver is in the chain: nothing will wait here", "error");
    if (!state.token) needToken("");
    stream();
  }

  setInterval(() => {
    for (const node of document.querySelectorAll(".deadline")) {
      node.textContent = `declined in ${remaining(node.dataset.deadline)}`;
    }
  }, 1000);

  document.addEventListener("DOMContentLoaded", () => {
    loadToken();
    $("token-form").addEventListener("submit", useToken);
    $("sign-out").addEventListener("click", forgetToken);
    guardAuditLink($("audit-link"));
    document.addEventListener("keydown", onKey);
    $("history-filters").addEventListener("submit", (event) => { event.preventDefault(); loadHistory(); });
    $("filter-q").addEventListener("input", scheduleHistory);
    for (const name of FILTERS.slice(1)) $(`filter-${name}`).addEventListener("change", () => loadHistory());
    $("history-group").addEventListener("change", renderHistory);
    $("history-more").addEventListener("click", () => loadHistory(true));
    start();
  });
})();
