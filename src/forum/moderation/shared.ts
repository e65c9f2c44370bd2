/** What every moderation route shares: its tag, and the answers of the administrator check (requireAdmin). */
export const TAGS = ['forum moderation'];
export const AUTH_ERRORS = [401, 429];
