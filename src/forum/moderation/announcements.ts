import { ApiError } from '../../http/errors.ts';
import { ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import type { RouteDefinition } from '../routing.ts';
import { publishAnnouncement } from '../topics/commands/publish-announcement.ts';
import { presentAnnouncementReceipt } from '../topics/presenters.ts';
import { Announcement, AnnouncementReceipt } from '../topics/schemas.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import { writtenStatus } from '../../http/written.ts';
import { AUTH_ERRORS, TAGS } from './shared.ts';

export const publishAnnouncementRoute: RouteDefinition = (app) => {
  const { store, clock, config } = app.services;
  app.post(
    '/api/admin/forum/announcements',
    {
      schema: {
        summary: 'Publish an announcement: a listed, read-only topic in announcements',
        description: 'A client_message_id makes it safe to retry: the same id and text answer 200 with the same topic.',
        tags: TAGS,
        security: ADMIN_BEARER,
        body: Announcement,
        response: responses({ 200: AnnouncementReceipt, 201: AnnouncementReceipt }, [400, 409, 413, 415, ...AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const outcome = await writeIdempotently(store, publishAnnouncement, {
        announcement: request.body,
        moderatorName: config.forumModeratorName,
        now: clock.now(),
      }, (written) => [{ type: 'forum.topic', topic_id: written.topicId }]);
      if (outcome.kind === 'conflict') throw new ApiError('client_message_id_conflict');
      return reply.code(writtenStatus(outcome)).send(presentAnnouncementReceipt(baseUrl(request), outcome.result.topicId));
    },
  );
};
