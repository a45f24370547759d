// The fleet page's confirm step before a forced start or stop (docs/design.md D28, D33): a start or
// stop the gateway refuses as busy (409 node_busy, group_busy) is offered again with ?force=true,
// and sent only when the operator confirms, since a forced act cuts requests in flight. A classic
// script loaded before app.js, which calls forceConfirm.ask and forceConfirm.close.
/* exported forceConfirm */
'use strict';

const forceConfirm = (() => {
  const box = document.getElementById('confirm');
  const text = document.getElementById('confirm-text');
  const yes = document.getElementById('confirm-yes');
  const no = document.getElementById('confirm-no');
  let confirmed;

  function close() {
    confirmed = undefined;
    box.hidden = true;
  }

  /** Asks to do `action` on `name` anyway, after the gateway's refusal `message`. */
  function ask(name, action, message, onConfirm) {
    const verb = action === 'start' ? 'Start' : 'Stop';
    text.textContent = `${message}. ${verb} ${name} anyway? Requests in flight there are cut.`;
    yes.textContent = `${verb} ${name} anyway`;
    confirmed = onConfirm;
    box.hidden = false;
    no.focus();
  }

  yes.addEventListener('click', () => {
    const run = confirmed;
    close();
    if (run) {
      void run();
    }
  });
  no.addEventListener('click', close);
  return { ask, close };
})();
