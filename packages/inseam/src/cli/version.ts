/** The version `inseam --version` prints; main.ts answers it before anything else is loaded. */
export const VERSION = '0.1.0';
