/** Shared by every Node side (engine, audit, service, front ends): errors a user can act on, folder locks, folder creation, small helpers. Everything outside this folder reaches it through here. */
export { InputError, MissingChatTemplateError, RemoteServerError } from './errors';
export { createFolder, describeFsError, isStorageError } from './folderCreation';
export { FolderLockedError, assertFolderFree, describeHolder, lockFolder, recoveredNote, type FolderLock } from './folderLock';
export { escapeHtml } from './escapeHtml';
export { median } from './median';
export { memorySizeText, parseMemorySize } from './memorySize';
export { MAX_TEXT_FILE_BYTES, forEachLine, isRegularFile, openRegularFile, readRegularBytes, readRegularText } from './boundedRead';
export { MAX_JSON_DEPTH, jsonTooDeep } from './jsonDepth';
export { invalidUtf8, invalidUtf8Warning, utf8TextOf, type InvalidUtf8 } from './invalidUtf8';
export { DEFAULT_MAX_BATCH, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_MS } from './engineLimits';
