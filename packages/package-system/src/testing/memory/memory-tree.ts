/**
 * The memory connector's store: a tree of directories and files keyed by decoded path segments.
 * It owns the mutation rules of the port contract (what write and delete refuse, with which
 * code); the connector layer owns URIs, paging and result shapes.
 */
import { createHash } from 'node:crypto';
import {
  AlreadyExistsError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
} from '../../contracts/index.js';

export interface MemoryFile {
  readonly type: 'file';
  readonly bytes: Uint8Array;
  readonly mime: string;
  readonly mtime: string;
  /** A content hash, so equal etags always mean equal content. */
  readonly etag: string;
}

export interface MemoryDirectory {
  readonly type: 'directory';
  readonly children: Map<string, MemoryNode>;
  mtime: string;
}

export type MemoryNode = MemoryFile | MemoryDirectory;

export interface TreeWriteOptions {
  readonly ifMatch?: string;
  readonly createOnly?: boolean;
}

export interface TreeDeleteOptions {
  readonly recursive?: boolean;
  readonly ifMatch?: string;
}

function now(): string {
  return new Date().toISOString();
}

function etagOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

export function newDirectory(): MemoryDirectory {
  return { type: 'directory', children: new Map(), mtime: now() };
}

export class MemoryTree {
  readonly root: MemoryDirectory = newDirectory();

  /** The node at `segments`, or undefined when missing (a path through a file is missing too). */
  lookup(segments: readonly string[]): MemoryNode | undefined {
    let node: MemoryNode = this.root;
    for (const segment of segments) {
      if (node.type !== 'directory') return undefined;
      const child: MemoryNode | undefined = node.children.get(segment);
      if (child === undefined) return undefined;
      node = child;
    }
    return node;
  }

  /**
   * Creates or replaces the file at `segments`, creating missing parents. Every refusal is decided
   * before anything changes. Throws is_a_directory (the root or a directory at the address),
   * not_a_directory (a parent is a file), already_exists (createOnly), precondition_failed (ifMatch).
   */
  writeFile(segments: readonly string[], bytes: Uint8Array, mime: string, options: TreeWriteOptions = {}): MemoryFile {
    const name = segments.at(-1);
    if (name === undefined) throw new IsADirectoryError('The source root is a directory; write to a file address below it.');
    const parentSegments = segments.slice(0, -1);
    let existingParent: MemoryDirectory | undefined = this.root;
    for (const segment of parentSegments) {
      const child: MemoryNode | undefined = existingParent.children.get(segment);
      if (child === undefined) {
        existingParent = undefined;
        break;
      }
      if (child.type === 'file') throw new NotADirectoryError(`"${segment}" in that address is a file, so nothing can be written below it.`);
      existingParent = child;
    }
    const existing = existingParent?.children.get(name);
    if (existing?.type === 'directory') throw new IsADirectoryError('A directory exists at that address; a file cannot replace it.');
    if (options.createOnly === true && existing !== undefined) {
      throw new AlreadyExistsError('An object already exists at that address and createOnly was set; nothing was written.');
    }
    if (options.ifMatch !== undefined && existing?.etag !== options.ifMatch) {
      throw new PreconditionFailedError(
        existing === undefined
          ? 'ifMatch was given but no object exists at that address; nothing was written.'
          : 'The object changed since it was read (its etag no longer matches ifMatch); nothing was written.',
      );
    }
    const parent = this.ensureDirectory(parentSegments);
    const file: MemoryFile = { type: 'file', bytes: Uint8Array.from(bytes), mime, mtime: now(), etag: etagOf(bytes) };
    parent.children.set(name, file);
    parent.mtime = file.mtime;
    return file;
  }

  /**
   * Removes the object at `segments`. Throws permission_denied (the root), not_found,
   * precondition_failed (ifMatch mismatch, or a non-empty directory without recursive).
   */
  remove(segments: readonly string[], options: TreeDeleteOptions = {}): void {
    const name = segments.at(-1);
    if (name === undefined) throw new PermissionDeniedError('The source root cannot be deleted.');
    const parent = this.lookup(segments.slice(0, -1));
    const node = parent?.type === 'directory' ? parent.children.get(name) : undefined;
    if (parent?.type !== 'directory' || node === undefined) throw new NotFoundError();
    if (options.ifMatch !== undefined && (node.type !== 'file' || node.etag !== options.ifMatch)) {
      throw new PreconditionFailedError('The object changed since it was read (its etag no longer matches ifMatch); nothing was deleted.');
    }
    if (node.type === 'directory' && node.children.size > 0 && options.recursive !== true) {
      throw new PreconditionFailedError('The directory is not empty; pass recursive: true to delete it and everything below it.');
    }
    parent.children.delete(name);
    parent.mtime = now();
  }

  private ensureDirectory(segments: readonly string[]): MemoryDirectory {
    let directory = this.root;
    for (const segment of segments) {
      let child = directory.children.get(segment);
      if (child === undefined) {
        child = newDirectory();
        directory.children.set(segment, child);
      }
      if (child.type !== 'directory') throw new NotADirectoryError(`"${segment}" in that address is a file.`);
      directory = child;
    }
    return directory;
  }
}

/** Child names in the listing order: by UTF-16 code unit, the same order cursors compare in. */
export function sortedNames(directory: MemoryDirectory): string[] {
  return [...directory.children.keys()].sort();
}
