/**
 * Building a folder source from a factory context, for both kinds. The kinds differ only in how
 * `root` is read: `fs` takes an absolute path, `local` a root token resolved against the project
 * root (or, for `${appRoot}`, the platform's application root, supplied by the platform).
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import { parseFolderSettings } from './config.js';
import { folderSource } from './folder.js';
import type { FolderKind } from './folder.js';
import { FolderConnector } from './port.js';
import { absoluteRoot, checkAbsoluteRoot, checkRootToken, tokenRoot } from './root.js';

export interface FolderConnectorOptions {
  readonly kind: FolderKind;
  /** For `local` roots under `${appRoot}`: the platform's absolute application root. */
  readonly appRoot?: string;
}

const SOURCE_SLUG = /^[a-z][a-z0-9+.-]*$/;

/**
 * Throws `invalid_config` for a bad root or setting, a source slug that is not a URI scheme, or a
 * missing absolute projectRoot (the kinds declare exec, and detached-run state lives under it
 * unless `stateDir` is set). A root that does not exist yet is not an error here: the source is
 * created, probes as `fs_unreachable`, and its calls answer `unavailable` until the folder appears.
 */
export function createFolderConnector(context: ConnectorFactoryContext, options: FolderConnectorOptions): FolderConnector {
  const { kind } = options;
  if (typeof context.source !== 'string' || !SOURCE_SLUG.test(context.source)) {
    throw new InvalidConfigError('The source slug must be usable as a URI scheme (a lowercase letter, then a-z, 0-9, "+", "." or "-").');
  }
  const projectRoot = context.projectRoot;
  if (typeof projectRoot !== 'string' || !projectRoot.startsWith('/')) {
    throw new InvalidConfigError(`A ${kind} source runs commands, so its factory needs an absolute projectRoot.`);
  }
  const settings = parseFolderSettings(context.config, kind === 'fs' ? checkAbsoluteRoot : checkRootToken);
  const root =
    kind === 'fs'
      ? absoluteRoot(settings.root)
      : tokenRoot(settings.root, { projectRoot, ...(options.appRoot === undefined ? {} : { appRoot: options.appRoot }) });
  const stateDir = settings.stateDir ?? `${projectRoot.replace(/\/+$/, '')}/.inseam/runs/${kind}/${context.source}`;
  return new FolderConnector(folderSource({ kind, source: context.source, root, settings, stateDir }));
}
