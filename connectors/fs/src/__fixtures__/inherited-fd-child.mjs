// A platform process started with a descriptor on a folder outside the root left open by its
// launcher (fd INHERITED, without close-on-exec): runs one command and prints its result as JSON.
// argv: root, projectRoot, command.
import { createFsConnector } from '@inseam/connector-fs';

const [root, projectRoot, command] = process.argv.slice(2);
const connector = createFsConnector({ packageId: '@inseam/connector-fs', packageRoot: root, source: 'box', config: { root }, projectRoot, scope: 'project' });
const result = await connector.exec({ command, cwd: 'box://' }, { session: { userId: 'u', projectId: 'p', features: new Set(['exec.machine']) } });
process.stdout.write(JSON.stringify(result));
