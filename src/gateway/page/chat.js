// The fleet page's "Try a model" box: a chat request through the gateway with the page's token
// (app.js's call), its reply streamed into the box as it arrives, and a button that stops it.
// Loaded after app.js, whose call, handleError and Unauthorized it uses.
/* global call, handleError, Unauthorized */
'use strict';

const chatUi = {
  form: document.getElementById('chat-form'),
  model: document.getElementById('model'),
  prompt: document.getElementById('prompt'),
  maxTokens: document.getElementById('max-tokens'),
  send: document.getElementById('send'),
  cancel: document.getElementById('cancel'),
  reply: document.getElementById('reply'),
  error: document.getElementById('chat-error'),
};

let chatAbort;

/** Reads an OpenAI-style SSE stream, appending each delta's content to the reply as it arrives. */
async function streamReply(reply) {
  const reader = reply.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return;
    }
    buffered += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) {
          continue;
        }
        const data = line.slice(5).trim();
        if (data === '[DONE]') {
          return;
        }
        const parsed = JSON.parse(data);
        if (parsed.error) {
          throw new Error(parsed.error.message || 'the gateway reported an error');
        }
        const choice = parsed.choices && parsed.choices[0];
        const text = choice && ((choice.delta && choice.delta.content) || choice.text);
        if (text) {
          chatUi.reply.textContent += text;
        }
      }
    }
  }
}

chatUi.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  chatUi.reply.textContent = '';
  chatUi.reply.removeAttribute('data-done');
  chatUi.error.textContent = '';
  chatUi.send.disabled = true;
  chatUi.cancel.disabled = false;
  chatAbort = new AbortController();
  try {
    const reply = await call('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: chatUi.model.value,
        stream: true,
        max_tokens: Number(chatUi.maxTokens.value) || 128,
        messages: [{ role: 'user', content: chatUi.prompt.value }],
      }),
      signal: chatAbort.signal,
    });
    await streamReply(reply);
    chatUi.reply.setAttribute('data-done', 'true');
  } catch (error) {
    if (error.name !== 'AbortError') {
      if (error instanceof Unauthorized) {
        handleError(error);
      } else {
        chatUi.error.textContent = error.message;
      }
    }
  } finally {
    chatUi.send.disabled = false;
    chatUi.cancel.disabled = true;
  }
});

chatUi.cancel.addEventListener('click', () => chatAbort && chatAbort.abort());
