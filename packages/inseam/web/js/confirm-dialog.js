// The one confirmation dialog of the page: a title, what will happen, Cancel and the confirming
// button. Every destructive action (removing a host, a package or a credential, deleting a file)
// asks through it, so they all behave alike: Cancel and Escape change nothing, a refusal stays in
// the dialog for the person to read.

import { button, h, uid } from './dom.js';

/**
 * A modal dialog in `parent`: `body` between the title and the buttons, `onConfirm()` when the
 * confirming button is pressed. What it throws is shown in the dialog, which stays open; Cancel
 * and Escape close it having changed nothing.
 */
export function confirmDialog(parent, { title, body, confirm, kind = 'primary', onConfirm }) {
  const titleId = uid('dialog-title');
  const error = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const cancel = button('Cancel', { kind: 'secondary' });
  const submit = button(confirm, { kind, type: 'submit' });
  const element = h('dialog', { class: 'confirm-dialog', 'aria-labelledby': titleId }, h('form', { method: 'dialog', novalidate: true }, h('h2', { id: titleId, text: title }), body, error, h('div', { class: 'row gap end' }, cancel, submit)));
  cancel.addEventListener('click', () => element.close());
  // A refusal is about what was sent: once the person changes it, it no longer applies.
  element.addEventListener('input', () => {
    error.hidden = true;
  });
  element.addEventListener('close', () => element.remove());
  element.querySelector('form').addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    error.hidden = true;
    try {
      await onConfirm();
      element.close();
    } catch (failure) {
      error.hidden = false;
      error.textContent = failure.message;
      submit.disabled = false;
    }
  });
  parent.append(element);
  element.showModal();
  return { element, cancel };
}
