/** The body parsed as JSON, or undefined when it is not JSON (an error page, an empty 204). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
