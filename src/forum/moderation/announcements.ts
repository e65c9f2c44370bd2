import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, responses } from '../../http/schemas.ts';
import { baseUrl } from '../../http/urls.ts';
import type { RouteDefinition } from '../routing.ts';
import { publishAnnouncement } from '../topics/commands/publish-announcement.ts';
import { presentAnnouncementReceipt } from '../topics/presenters.ts';
import { Announcement, AnnouncementReceipt } from '../topics/schemas.ts';
import { perform, writeStatus } from '../../writes/perform.ts';
import { TAGS } from './shared.ts';

export const publishAnnouncementRoute: RouteDefinition = (app) => {
  const { clock, config } = app.services;
  app.post(
    '/api/admin/forum/announcements',
    {
      schema: {
        summary: 'Publish an announcement: a listed, read-only topic in announcements',
        description: 'A client_message_id makes it safe to retry: the same id and text answer 200 with the same topic.',
        tags: TAGS,
        security: ADMIN_BEARER,
        body: Announcement,
        response: responses({ 200: AnnouncementReceipt, 201: AnnouncementReceipt }, [400, 409, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request, reply) => {
      const published = await perform(app.services, publishAnnouncement, { announcement: request.body, moderatorName: config.forumModeratorName, now: clock.now() });
      return reply.code(writeStatus(published)).send(presentAnnouncementReceipt(baseUrl(request), published.result.topicId));
    },
  );
};
