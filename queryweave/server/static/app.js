// QueryWeave search page: suggestions as you type, streamed progress and answer (server-sent events
// over fetch), a clarification dialog when the graph asks, clickable citations, feedback.
// Plain browser JavaScript: no build step, no external resources.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { threadId: null, image: null, imageName: "", suggestions: [], active: -1, citations: [],
                 suggestTimer: null, suggestSeq: 0, busy: false, tokenId: null };

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
  $("thread-info").textContent = id ? `thread ${id}` : "";
}

// ---------------------------------------------------------------- suggestions
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
    if (seq === state.suggestSeq && $("q").value.trim() === prefix) renderSuggestions(data.suggestions || []);
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
    $("image-name").textContent = `Image: ${state.imageName}`;
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
  li.innerHTML = `${escapeHtml(ev.label || ev.node)}${ms}${facts ? `<span class="facts muted">${escapeHtml(facts)}</span>` : ""}`;
  if (ev.status === "running") setStatus(`${ev.label || ev.node}…`);
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
function renderAnswer(out) {
  state.citations = out.citations || [];
  const byN = new Map(state.citations.map((c) => [String(c.n), c]));
  const html = escapeHtml(out.answer || "").replace(/\[(\d{1,2})\]/g, (m, n) =>
    byN.has(n) ? `<a href="#" class="cite" data-n="${n}">[${n}]</a>` : m);
  $("answer").innerHTML = html;
  $("answer").classList.remove("streaming");
  const meta = [];
  if (out.route) meta.push(`route: ${out.route}`);
  if (out.strategy) meta.push(`strategy: ${out.strategy}`);
  if (out.intent) meta.push(`intent: ${out.intent}`);
  if (out.k != null) meta.push(`k: ${out.k}`);
  if (out.confidence != null) meta.push(`confidence: ${Number(out.confidence).toFixed(2)}`);
  if (out.backend) meta.push(`backend: ${out.backend}`);
  $("meta").innerHTML = meta.map((m) => `<span>${escapeHtml(m)}</span>`).join("")
    + (out.degraded ? `<span class="low" title="${escapeHtml((out.degraded_reasons || []).join("; "))}">degraded</span>` : "")
    + (out.resolved_query && out.resolved_query !== $("q").value.trim()
      ? `<span title="the question the graph answered">as: ${escapeHtml(out.resolved_query)}</span>` : "")
    + (out.transcript ? `<span title="what the speech recogniser heard">heard: ${escapeHtml(out.transcript)}</span>` : "");
  $("citations").innerHTML = state.citations.map((c) =>
    `<li><a class="source" data-n="${c.n}">${escapeHtml(c.title || c.source || c.chunk_id)}</a> <span class="muted">${escapeHtml(c.source || "")}</span></li>`).join("");
  $("result").hidden = false;
  setStatus(state.citations.length ? "" : "No sources cited.");
}
function showCitation(n) {
  const c = state.citations.find((x) => String(x.n) === String(n));
  if (!c) return;
  $("cited-title").textContent = `[${c.n}] ${c.title || c.source || ""}`;
  $("cited-source").textContent = c.source || "";
  $("cited-text").textContent = c.text || "";
  $("cited").hidden = false;
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
  $("clarify-question").textContent = c.question || "Which one do you mean?";
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
  setStatus("The question is ambiguous: please choose.");
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
  else if (kind === "error") setStatus(ev.message || "The run failed.", true);
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
    setStatus(`Connection failed: ${err}`, true);
  } finally {
    state.busy = false;
    $("ask").disabled = false;
  }
}
function ask() {
  const question = $("q").value.trim();
  if (!question && !state.image && !state.audio) { setStatus("Type a question first.", true); return; }
  hideSuggestions();
  resetResult();
  setStatus("Working…");
  const body = { question, thread_id: state.threadId };
  if (state.image) body.image = state.image;
  state.image = null; $("image").value = ""; $("image-chip").hidden = true;
  if (state.audio) body.audio = state.audio;
  clearAudio();
  runStream(body);
}
function resume(choice) {
  setStatus(`Continuing with “${choice}”…`);
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
    $("feedback-status").textContent = resp.ok ? "Thanks!" : "Could not record feedback.";
    if (resp.ok) ["up", "down"].forEach((id) => $(id).classList.toggle("chosen", id === rating));
  } catch (err) { $("feedback-status").textContent = "Could not record feedback."; }
}
$("up").addEventListener("click", () => sendFeedback("up"));
$("down").addEventListener("click", () => sendFeedback("down"));
