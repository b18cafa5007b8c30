// Changing files from a folder view: uploading into the folder, renaming and deleting its
// entries. Offered only where the caller's rights at the host root and the host's kind allow it
// (`rights` and `capabilities` of GET /v1/hosts: an agent's rights there already count its
// grants) and the host answers live; the server still decides each call, and what it refuses is
// shown as its message says.

import { errorOf, query } from './api.js';
import { confirmDialog } from './confirm-dialog.js';
import { button, h, uid } from './dom.js';

/** What the caller may change in a folder of `hostInfo` listed from `source` (`live` or `catalog`). */
export function folderRights(hostInfo, source) {
  if (!hostInfo || source !== 'live') return { upload: false, rename: false, delete: false };
  const capabilities = hostInfo.capabilities ?? [];
  const rights = hostInfo.rights ?? {};
  const write = rights.write === true && capabilities.includes('write');
  // Deleting takes the tree's write and read (what a caller cannot see it cannot remove).
  const remove = rights.write === true && rights.read === true && capabilities.includes('delete');
  return { upload: write, rename: write && remove, delete: remove };
}

/** The address of `name` inside the folder at `folder` (a host root ends in a slash). */
export function childAddress(folder, name) {
  return `${folder.replace(/\/$/, '')}/${encodeURIComponent(name)}`;
}

/** Why `name` cannot name an entry, or null. */
function nameProblem(name) {
  if (name === '') return 'Enter a name.';
  if (name.includes('/')) return 'A name cannot contain “/”; move it to another folder instead.';
  if (name === '.' || name === '..') return 'Choose another name.';
  return null;
}

/**
 * An Upload button for the folder at `address`: each chosen file is sent as it is (the browser
 * streams it) with `PUT /v1/fs/write`, create only, so nothing already there is replaced.
 * `onDone(names)` runs after the last one written.
 */
export function uploadControl({ api, address, toast, onDone }) {
  const input = h('input', { type: 'file', multiple: true, hidden: true, 'aria-label': 'Files to upload' });
  const status = h('span', { class: 'small muted upload-status', role: 'status' });
  const control = button('Upload files', { kind: 'secondary', iconName: 'upload', onClick: () => input.click() });
  input.addEventListener('change', async () => {
    const files = [...input.files];
    input.value = '';
    if (files.length === 0) return;
    control.disabled = true;
    const written = [];
    try {
      for (const file of files) {
        status.textContent = `Uploading ${file.name}…`;
        const response = await api.request('PUT', `/v1/fs/write${query({ address: childAddress(address, file.name) })}`, {
          raw: file,
          headers: { 'if-none-match': '*', 'content-type': file.type || 'application/octet-stream' },
        });
        if (!response.ok) throw Object.assign(await errorOf(response), { file: file.name });
        written.push(file.name);
      }
      toast(written.length === 1 ? `Uploaded ${written[0]}.` : `Uploaded ${written.length} files.`);
    } catch (error) {
      toast(error.file ? `${error.file}: ${error.message}` : error.message, 'error');
    } finally {
      status.textContent = '';
      control.disabled = false;
      if (written.length > 0) onDone(written);
    }
  });
  return h('div', { class: 'row gap wrap folder-tools' }, control, input, status);
}

/** Asks for a new name for `entry` and moves it there (`POST /v1/fs/move`, never over something already there). */
export function renameEntry({ api, parent, folder, entry, onDone }) {
  const id = uid('rename');
  const input = h('input', { id, type: 'text', value: entry.name, autocomplete: 'off', spellcheck: 'false', required: true });
  confirmDialog(parent, {
    title: `Rename ${entry.name}`,
    body: h('div', { class: 'field' }, h('label', { for: id, class: 'label', text: 'New name' }), input),
    confirm: 'Rename',
    onConfirm: async () => {
      const name = input.value.trim();
      const problem = nameProblem(name) ?? (name === entry.name ? 'That is its name already.' : null);
      if (problem) {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        throw new Error(problem);
      }
      input.removeAttribute('aria-invalid');
      await api.post('/v1/fs/move', { from: entry.address, to: childAddress(folder, name), createOnly: true });
      onDone(name);
    },
  });
  input.focus();
  input.setSelectionRange(0, entry.name.lastIndexOf('.') > 0 ? entry.name.lastIndexOf('.') : entry.name.length);
}

/**
 * Asks before deleting `entry` (`DELETE /v1/fs/delete`): a file only as it was listed (If-Match
 * its etag, so a file changed since is kept), a folder with everything in it. Cancel keeps it.
 */
export function deleteEntry({ api, parent, entry, onDone }) {
  const folder = entry.type === 'directory';
  const { cancel } = confirmDialog(parent, {
    title: `Delete ${entry.name}?`,
    body: h(
      'p',
      {},
      folder ? 'The folder and everything in it are removed from the host itself: ' : 'The file is removed from the host itself: ',
      h('code', { class: 'mono', text: entry.address }),
      '. This cannot be undone here.',
    ),
    confirm: 'Delete',
    kind: 'danger',
    onConfirm: async () => {
      await api.delete(`/v1/fs/delete${query({ address: entry.address, recursive: folder ? 'true' : undefined })}`, !folder && entry.etag ? { headers: { 'if-match': JSON.stringify(entry.etag) } } : undefined);
      onDone();
    },
  });
  cancel.focus();
}
