/** Whether `port` can be dialled: 1 to 65535 (URL parsing and the CONNECT pattern both let 0 through). */
export function isDialPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}
