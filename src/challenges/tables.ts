export interface SpentChallengesTable {
  /** The challenge of an accepted solution (a hash of its random salt and number): a solution is accepted once. */
  challenge: string;
  /** When the challenge expires: after it the solution is refused anyway, and the row may go. */
  expires_at: number;
}

export interface ChallengeTables {
  spent_challenges: SpentChallengesTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds ChallengeTables to the store's tables
  interface Database extends ChallengeTables {}
}
