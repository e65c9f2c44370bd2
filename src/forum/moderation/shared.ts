/** What every moderation route shares: its tag. */
export const TAGS = ['forum moderation'];
