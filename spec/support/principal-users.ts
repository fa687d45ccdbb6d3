/** Two accounts as curl's `--proxy-user` takes them: alice is her own principal, bob's flows are keyed `team-b`. */
export const ALICE = 'alice:alice-pw-1b2c';
export const BOB = 'bob:bob-pw-3d4e';

/** A SOCKS5 inbound `socks-users` with ALICE and BOB as its accounts. */
export function usersInbound(): Record<string, unknown> {
  return {
    type: 'socks',
    tag: 'socks-users',
    users: [
      { username: 'alice', password: ALICE.split(':')[1] },
      { username: 'bob', password: BOB.split(':')[1], principal: 'team-b' },
    ],
  };
}
