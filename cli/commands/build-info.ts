import { buildInfo } from '../../actors/engine/build-info.js';
import { EXIT } from '../exit-codes.js';

export function buildInfoCommand(json: boolean): number {
  const info = buildInfo();
  if (json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    for (const [key, value] of Object.entries(info)) {
      process.stdout.write(`${key.padEnd(14)} ${Array.isArray(value) ? value.join(', ') : value}\n`);
    }
  }
  return EXIT.ok;
}
