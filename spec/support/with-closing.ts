/** A test body run on something opened for it and closed after it, whether the body passes or fails. */
export function withClosing<R extends { close(): Promise<void> }>(open: () => Promise<R>, body: (opened: R) => Promise<void>): () => Promise<void> {
  return async () => {
    const opened = await open();
    try {
      await body(opened);
    } finally {
      await opened.close();
    }
  };
}
