// QueryWeave search page: suggestions as you type, streamed progress and answer (server-sent events
// over fetch), a clarification dialog when the graph asks, clickable citations, feedback.
// Plain browser JavaScript: no build step, no external resources.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { threadId: null, image: null, imageName: "", suggestions: [], active: -1, citations: [],
                 suggestTimer: null, suggestSeq: 0, busy: false, tokenId: null };

// ---------------------------------------------------------------- labels (English / Chinese)
// The page speaks the language of the session: Chinese when the browser prefers it or the question is
// in Chinese, else English. Step labels come from the server in English; they are translated by node.
const LABELS = {
  en: { ask: "Ask", image: "Image…", newThread: "New conversation", steps: "Steps", sources: "Sources",
        helpful: "Helpful?", yes: "Yes", no: "No", thanks: "Thanks!", feedbackFailed: "Could not record feedback.",
        placeholder: "Ask the knowledge base… / 向知识库提问…", thread: "thread", working: "Working…",
        typeFirst: "Type a question first.", noSources: "No sources cited.", chooseOne: "The question is ambiguous: please choose.",
        whichOne: "Which one do you mean?", freeText: "Or say it in your own words…", send: "Send",
        continuing: (c) => `Continuing with “${c}”…`, failed: "The run failed.", connection: "Connection failed",
        as: "as", heard: "heard", degraded: "degraded", route: "route", strategy: "strategy", intent: "intent", k: "k",
        confidence: "confidence", backend: "backend", imageLabel: "Image", attach: "Attach a screenshot or photo (its text joins the question)",
        close: "Close", removeImage: "Remove image" },
  zh: { ask: "提问", image: "图片…", newThread: "新对话", steps: "步骤", sources: "来源",
        helpful: "有帮助吗？", yes: "有", no: "没有", thanks: "谢谢！", feedbackFailed: "反馈未能记录。",
        placeholder: "向知识库提问… / Ask the knowledge base…", thread: "会话", working: "处理中…",
        typeFirst: "请先输入问题。", noSources: "没有引用来源。", chooseOne: "问题有歧义，请选择。",
        whichOne: "你指的是哪一个？", freeText: "或者用自己的话说明…", send: "发送",
        continuing: (c) => `继续：“${c}”…`, failed: "运行失败。", connection: "连接失败",
        as: "理解为", heard: "听到", degraded: "已降级", route: "路由", strategy: "策略", intent: "意图", k: "k",
        confidence: "置信度", backend: "后端", imageLabel: "图片", attach: "附加截图或照片（其中的文字会加入问题）",
        close: "关闭", removeImage: "移除图片" },
};
const STEP_LABELS_ZH = {
  begin: "开始", ocr: "识别图片文字", resolve: "理解问题", necessity: "判断是否需要检索", respond_direct: "直接回答",
  analyze: "分析意图", clarify: "请求澄清", route: "选择策略", rewrite: "改写查询", self_query: "构建元数据过滤",
  retrieve: "检索", rerank: "重排序", grade_documents: "评估文档", text_to_sql: "查询 SQL", text_to_cypher: "查询图数据库",
  summary_retrieve: "读取摘要", generate: "生成答案", reflect: "检查答案", finish: "完成",
};
const CJK = /[\u3400-\u9fff]/;
const BROWSER_LANG = (navigator.languages || [navigator.language || "en"]).some((l) => /^zh\b/i.test(l)) ? "zh" : "en";
let lang = BROWSER_LANG;
const t = (key) => LABELS[lang][key] ?? LABELS.en[key];
function applyLabels() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  $("ask").textContent = t("ask");
  $("attach-text").textContent = t("image");
  document.querySelector(".attach").title = t("attach");
  $("new-thread").textContent = t("newThread");
  $("steps-title").textContent = t("steps");
  $("sources-title").textContent = t("sources");
  $("helpful").textContent = t("helpful");
  $("up-text").textContent = t("yes");
  $("down-text").textContent = t("no");
  $("q").placeholder = t("placeholder");
  $("clarify-free").placeholder = t("freeText");
  $("clarify-send").textContent = t("send");
  $("cited-close").setAttribute("aria-label", t("close"));
  $("image-clear").setAttribute("aria-label", t("removeImage"));
  if (state.threadId) $("thread-info").textContent = `${t("thread")} ${state.threadId}`;
}
function useLanguageOf(text) {
  const next = CJK.test(text || "") ? "zh" : BROWSER_LANG;
  if (next !== lang) { lang = next; applyLabels(); }
}
function stepLabel(ev) {
  return lang === "zh" ? (STEP_LABELS_ZH[ev.node] || ev.label || ev.node) : (ev.label || ev.node);
}

// ---------------------------------------------------------------- helpers
function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function setStatus(text, isError = false) {
  $("status").textContent = text || "";
  $("status").classList.toggle("error", !!isError);
}
function setThread(id) {
  state.threadId = id;
  $("thread-info").textContent = id ? `${t("thread")} ${id}` : "";
}

// ---------------------------------------------------------------- suggestions
function cancelSuggestions() {
  clearTimeout(state.suggestTimer);
  state.suggestSeq += 1;  // answers of requests still in flight are dropped
  hideSuggestions();
}
function hideSuggestions() {
  $("suggestions").hidden = true;
  $("suggestions").innerHTML = "";
  $("q").setAttribute("aria-expanded", "false");
  state.suggestions = [];
  state.active = -1;
}
function renderSuggestions(items) {
  const list = $("suggestions");
  state.suggestions = items;
  state.active = -1;
  list.innerHTML = "";
  items.forEach((item, i) => {
    const li = document.createElement("li");
    li.className = "suggestion";
    li.setAttribute("role", "option");
    li.dataset.index = i;
    li.innerHTML = `<span class="text">${escapeHtml(item.text)}</span><span class="src">${escapeHtml(item.source || "")}</span>`;
    li.addEventListener("mousedown", (ev) => { ev.preventDefault(); pickSuggestion(i); });
    list.appendChild(li);
  });
  list.hidden = items.length === 0;
  $("q").setAttribute("aria-expanded", String(!list.hidden));
}
function highlight(i) {
  const items = $("suggestions").querySelectorAll("li");
  items.forEach((li, j) => li.classList.toggle("active", j === i));
  state.active = i;
}
async function fetchSuggestions(prefix) {
  const seq = ++state.suggestSeq;
  try {
    const resp = await fetch(`/suggest?q=${encodeURIComponent(prefix)}&limit=8`);
    if (!resp.ok || seq !== state.suggestSeq) return;
    const data = await resp.json();
    // a question sent meanwhile (Enter right after typing) bumps the sequence: no list over its answer
    if (seq === state.suggestSeq && !state.busy && $("q").value.trim() === prefix) renderSuggestions(data.suggestions || []);
  } catch (err) { /* suggestions are optional */ }
}
function pickSuggestion(i) {
  const item = state.suggestions[i];
  if (!item) return;
  $("q").value = item.text;
  hideSuggestions();
  ask();
}
$("q").addEventListener("input", () => {
  const prefix = $("q").value.trim();
  clearTimeout(state.suggestTimer);
  if (!prefix) { hideSuggestions(); return; }
  state.suggestTimer = setTimeout(() => fetchSuggestions(prefix), 120);
});
$("q").addEventListener("keydown", (ev) => {
  const n = state.suggestions.length;
  if (ev.key === "ArrowDown" && n) { ev.preventDefault(); highlight((state.active + 1) % n); }
  else if (ev.key === "ArrowUp" && n) { ev.preventDefault(); highlight((state.active - 1 + n) % n); }
  else if (ev.key === "Escape") { hideSuggestions(); }
  else if (ev.key === "Enter" && state.active >= 0) { ev.preventDefault(); pickSuggestion(state.active); }
});
$("q").addEventListener("blur", () => setTimeout(hideSuggestions, 150));

// ---------------------------------------------------------------- image input
function readImage(file) {
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    state.image = reader.result;
    state.imageName = file.name || "pasted image";
    $("image-name").textContent = `${t("imageLabel")}: ${state.imageName}`;
    $("image-chip").hidden = false;
  };
  reader.readAsDataURL(file);
}
$("image").addEventListener("change", (ev) => readImage(ev.target.files[0]));
$("image-clear").addEventListener("click", () => {
  state.image = null; $("image").value = ""; $("image-chip").hidden = true;
});
document.addEventListener("paste", (ev) => {
  const file = [...(ev.clipboardData?.files || [])].find((f) => f.type.startsWith("image/"));
  if (file) readImage(file);
});

// ---------------------------------------------------------------- audio input (transcribed on the server)
state.audio = null;
let recorder = null;
function readAudio(file) {
  if (!file) return;
  if (file.size > 10 * 1024 * 1024) { setStatus("Audio too large (over 10 MB).", true); return; }
  const reader = new FileReader();
  reader.onload = () => {
    state.audio = reader.result;
    $("audio-name").textContent = `Audio: ${file.name || "recording"}`;
    $("audio-chip").hidden = false;
  };
  reader.readAsDataURL(file);
}
function clearAudio() { state.audio = null; $("audio").value = ""; $("audio-chip").hidden = true; }
$("audio").addEventListener("change", (ev) => readAudio(ev.target.files[0]));
$("audio-clear").addEventListener("click", clearAudio);
$("record").addEventListener("click", async () => {
  if (recorder && recorder.state === "recording") { recorder.stop(); return; }
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") {
    setStatus("This browser cannot record; attach an audio file instead.", true); return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const chunks = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (ev) => { if (ev.data.size) chunks.push(ev.data); };
    recorder.onstop = () => {
      stream.getTracks().forEach((t) => t.stop());
      $("record").textContent = "● Record"; $("record").setAttribute("aria-pressed", "false");
      setStatus("Recorded; press Ask (a typed question is sent with it).");
      readAudio(new File(chunks, "recording.webm", { type: recorder.mimeType || "audio/webm" }));
    };
    recorder.start();
    $("record").textContent = "■ Stop"; $("record").setAttribute("aria-pressed", "true");
    setStatus("Recording… press Stop when done.");
  } catch (err) { setStatus(`Microphone unavailable: ${err.message || err}`, true); }
});

// ---------------------------------------------------------------- progress
function resetResult() {
  state.tokenId = null;
  $("steps").innerHTML = "";
  $("progress").hidden = false;
  $("result").hidden = true;
  $("answer").textContent = "";
  $("answer").classList.remove("streaming");
  $("citations").innerHTML = "";
  $("meta").innerHTML = "";
  $("feedback-status").textContent = "";
  ["up", "down"].forEach((id) => $(id).classList.remove("chosen"));
  $("cited").hidden = true;
}
function factsText(facts) {
  if (!facts) return "";
  const keep = ["intent", "strategy", "route", "k", "documents"];
  return keep.filter((k) => facts[k] !== undefined && facts[k] !== "").map((k) => `${k}=${facts[k]}`).join(" ");
}
function onStep(ev) {
  let li = $("steps").querySelector(`li[data-node="${CSS.escape(ev.node)}"]:not(.done)`);
  if (!li) {
    li = document.createElement("li");
    li.dataset.node = ev.node;
    $("steps").appendChild(li);
  }
  li.className = ev.status;
  const ms = ev.ms != null ? ` (${Math.round(ev.ms)} ms)` : "";
  const facts = factsText(ev.facts);
  li.innerHTML = `${escapeHtml(stepLabel(ev))}${ms}${facts ? `<span class="facts muted">${escapeHtml(facts)}</span>` : ""}`;
  if (ev.status === "running") setStatus(`${stepLabel(ev)}…`);
}
function onToken(ev) {
  $("result").hidden = false;
  $("answer").classList.add("streaming");
  if (ev.id !== state.tokenId) {  // a new message: a new attempt replaces the previous draft
    state.tokenId = ev.id;
    $("answer").textContent = "";
  }
  $("answer").textContent += ev.text;
}

// ---------------------------------------------------------------- answer and citations
// Answers are Markdown (an LLM's) or extracted units ("maximumPoolSize | Default: 10 | ...", `code`,
// **bold**). Rendered here from escaped text only: no HTML from the answer reaches the page.
function inline(text, byN) {
  const codes = [];
  let html = escapeHtml(text).replace(/`([^`\n]+)`/g, (m, c) => { codes.push(c); return `\u0000${codes.length - 1}\u0000`; });
  html = html.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*([^*\s][^*\n]*?)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/\[(\d{1,2})\]/g, (m, n) => (byN.has(n) ? `<a href="#" class="cite" data-n="${n}">[${n}]</a>` : m));
  return html.replace(/\u0000(\d+)\u0000/g, (m, i) => `<code>${codes[Number(i)]}</code>`);
}
const cells = (row) => row.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
function tableHtml(rows, byN) {
  const rule = rows.length > 1 && /^\s*\|?\s*:?-{2,}/.test(rows[1]);
  const head = rule ? `<thead><tr>${cells(rows[0]).map((c) => `<th>${inline(c, byN)}</th>`).join("")}</tr></thead>` : "";
  const body = (rule ? rows.slice(2) : rows).map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c, byN)}</td>`).join("")}</tr>`);
  return `<div class="table"><table>${head}<tbody>${body.join("")}</tbody></table></div>`;
}
function paragraphHtml(text, byN) {
  // an extracted table row sits inside the prose: "name | Default: 10 | Meaning: ... [2]" -> a small table
  const parts = text.split(/(?<=\[\d{1,2}\])\s+/);
  let html = "", prose = [];
  const flush = () => { if (prose.length) html += `<p>${inline(prose.join(" "), byN)}</p>`; prose = []; };
  for (const part of parts) {
    if ((part.match(/ \| /g) || []).length >= 2) {
      flush();
      const marker = (part.match(/\s*(\[\d{1,2}\])$/) || ["", ""]);
      const row = part.slice(0, part.length - marker[0].length);
      html += `<div class="table unit"><table><tbody><tr>${cells(row).map((c) => `<td>${inline(c, byN)}</td>`).join("")}`
        + `<td class="cite-cell">${inline(marker[1], byN)}</td></tr></tbody></table></div>`;
    } else prose.push(part);
  }
  flush();
  return html;
}
function renderMarkdown(text, byN) {
  const lines = String(text || "").replace(/\r\n?/g, "\n").split("\n");
  let html = "", para = [], list = null, i = 0;
  const flushPara = () => { if (para.length) html += paragraphHtml(para.join(" "), byN); para = []; };
  const flushList = () => { if (list) html += `<${list.tag}>${list.items.map((x) => `<li>${inline(x, byN)}</li>`).join("")}</${list.tag}>`; list = null; };
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flushPara(); flushList();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i += 1) code.push(lines[i]);
      html += `<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`;
    } else if (/^\s*\|.*\|\s*$/.test(line)) {
      flushPara(); flushList();
      const rows = [];
      for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]); i += 1) rows.push(lines[i]);
      html += tableHtml(rows, byN);
      continue;
    } else if (/^\s{0,3}#{1,6}\s/.test(line)) {
      flushPara(); flushList();
      html += `<p class="heading"><strong>${inline(line.replace(/^\s*#+\s*/, ""), byN)}</strong></p>`;
    } else if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) {
      flushPara();
      const tag = /^\s*\d/.test(line) ? "ol" : "ul";
      if (!list || list.tag !== tag) { flushList(); list = { tag, items: [] }; }
      list.items.push(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ""));
    } else if (!line.trim()) {
      flushPara(); flushList();
    } else {
      flushList();
      para.push(line.trim());
    }
    i += 1;
  }
  flushPara(); flushList();
  return html;
}
function sourcesHtml(citations) {
  // one entry per document: two cited chunks of one source are one source with two numbers
  const groups = new Map();
  for (const c of citations) {
    const key = c.source || c.title || c.chunk_id;
    if (!groups.has(key)) groups.set(key, { title: c.title || c.source || c.chunk_id, source: c.source || "", ns: [] });
    groups.get(key).ns.push(c.n);
  }
  return [...groups.values()].map((g) =>
    `<li class="source-item"><span class="nums">${g.ns.map((n) => `<a class="source" data-n="${n}">[${n}]</a>`).join("")}</span> `
    + `<a class="source title" data-n="${g.ns[0]}">${escapeHtml(g.title)}</a> <span class="muted">${escapeHtml(g.source)}</span></li>`).join("");
}
function renderAnswer(out) {
  state.citations = out.citations || [];
  const byN = new Map(state.citations.map((c) => [String(c.n), c]));
  $("answer").innerHTML = renderMarkdown(out.answer || "", byN);
  $("answer").classList.remove("streaming");
  const meta = [];
  if (out.route) meta.push(`${t("route")}: ${out.route}`);
  if (out.strategy) meta.push(`${t("strategy")}: ${out.strategy}`);
  if (out.intent) meta.push(`${t("intent")}: ${out.intent}`);
  if (out.k != null) meta.push(`${t("k")}: ${out.k}`);
  if (out.confidence != null) meta.push(`${t("confidence")}: ${Number(out.confidence).toFixed(2)}`);
  if (out.backend) meta.push(`${t("backend")}: ${out.backend}`);
  $("meta").innerHTML = meta.map((m) => `<span>${escapeHtml(m)}</span>`).join("")
    + (out.degraded ? `<span class="low" title="${escapeHtml((out.degraded_reasons || []).join("; "))}">${t("degraded")}</span>` : "")
    + (out.resolved_query && out.resolved_query !== $("q").value.trim()
      ? `<span class="as" title="the question the graph answered">${t("as")}: ${escapeHtml(out.resolved_query)}</span>` : "")
    + (out.transcript ? `<span title="what the speech recogniser heard">${t("heard")}: ${escapeHtml(out.transcript)}</span>` : "");
  $("citations").innerHTML = sourcesHtml(state.citations);
  $("result").hidden = false;
  setStatus(state.citations.length ? "" : t("noSources"));
}
function showCitation(n) {
  const c = state.citations.find((x) => String(x.n) === String(n));
  if (!c) return;
  $("cited-title").textContent = `[${c.n}] ${c.title || c.source || ""}`;
  $("cited-source").textContent = c.source || "";
  $("cited-text").textContent = c.text || "";
  $("cited").hidden = false;
  $("cited").scrollIntoView({ block: "nearest" });
  document.querySelectorAll("a.cite").forEach((a) => a.classList.toggle("active", a.dataset.n === String(n)));
}
document.addEventListener("click", (ev) => {
  const link = ev.target.closest("a.cite, #citations a.source");
  if (link) { ev.preventDefault(); showCitation(link.dataset.n); }
});
$("cited-close").addEventListener("click", () => { $("cited").hidden = true; });

// ---------------------------------------------------------------- clarification
function askClarification(ev) {
  const c = ev.clarification || {};
  $("clarify-question").textContent = c.question || t("whichOne");
  const box = $("clarify-options");
  box.innerHTML = "";
  (c.options || []).forEach((opt) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "option";
    b.textContent = opt;
    b.addEventListener("click", () => { $("clarify").close(); resume(opt); });
    box.appendChild(b);
  });
  $("clarify-free").value = "";
  setStatus(t("chooseOne"));
  if (!$("clarify").open) $("clarify").showModal();
}
$("clarify-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("clarify-free").value.trim();
  if (!text) return;
  $("clarify").close();
  resume(text);
});

// ---------------------------------------------------------------- streaming runs
function handleEvent(kind, ev) {
  if (kind === "start") setThread(ev.thread_id);
  else if (kind === "step") onStep(ev);
  else if (kind === "token") onToken(ev);
  else if (kind === "clarify") askClarification(ev);
  else if (kind === "answer") renderAnswer(ev);
  else if (kind === "error") setStatus(ev.message || t("failed"), true);
}
async function runStream(body) {
  if (state.busy) return;
  state.busy = true;
  $("ask").disabled = true;
  try {
    const resp = await fetch("/ask/stream", {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    if (!resp.ok) {
      let detail = `${resp.status} ${resp.statusText}`;
      try { const j = await resp.json(); detail = typeof j.detail === "string" ? j.detail : JSON.stringify(j.detail); } catch (e) { /* keep */ }
      setStatus(detail, true);
      return;
    }
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let kind = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) kind = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (data) handleEvent(kind, JSON.parse(data));
      }
    }
  } catch (err) {
    setStatus(`${t("connection")}: ${err}`, true);
  } finally {
    state.busy = false;
    $("ask").disabled = false;
  }
}
function ask() {
  const question = $("q").value.trim();
  cancelSuggestions();
  if (!question && !state.image && !state.audio) { setStatus(t("typeFirst"), true); return; }
  useLanguageOf(question);
  resetResult();
  setStatus(t("working"));
  const body = { question, thread_id: state.threadId };
  if (state.image) body.image = state.image;
  state.image = null; $("image").value = ""; $("image-chip").hidden = true;
  if (state.audio) body.audio = state.audio;
  clearAudio();
  runStream(body);
}
function resume(choice) {
  setStatus(t("continuing")(choice));
  runStream({ question: "", thread_id: state.threadId, resume: choice });
}
$("search").addEventListener("submit", (ev) => { ev.preventDefault(); ask(); });
$("new-thread").addEventListener("click", () => { setThread(null); resetResult(); $("progress").hidden = true; setStatus(""); $("q").focus(); });

// ---------------------------------------------------------------- feedback
async function sendFeedback(rating) {
  if (!state.threadId) return;
  try {
    const resp = await fetch("/feedback", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ thread_id: state.threadId, rating }),
    });
    $("feedback-status").textContent = resp.ok ? t("thanks") : t("feedbackFailed");
    if (resp.ok) ["up", "down"].forEach((id) => $(id).classList.toggle("chosen", id === rating));
  } catch (err) { $("feedback-status").textContent = t("feedbackFailed"); }
}
$("up").addEventListener("click", () => sendFeedback("up"));
$("down").addEventListener("click", () => sendFeedback("down"));
applyLabels();
