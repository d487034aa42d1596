// The console's routes behind the session check, each declared once
// (src/console/route-table.ts, docs/architecture.md#the-console). The sign-in
// page, the language link and the stylesheet, which need no session, are in
// index.ts.
import { z } from 'zod';
import {
  ACCOUNT_NAME,
  accountForm,
  accountsPage,
  accountsQuery,
  addAccount,
  changeAccount,
  changeForm,
  confirmRemovalPage,
  loadAccounts,
} from './accounts';
import { auditPage, auditQuery, loadAudit } from './audit-page';
import {
  confirmResendDeadPage,
  deadListQuery,
  deadPage,
  deadResendForm,
  dismissDead,
  dismissForm,
  loadDead,
  loadResendDead,
  resendDead,
} from './dead-letters';
import { applyUpload, downloadReport, importFormPage, loadUpload, receiveUpload, uploadPage } from './import-page';
import { confirmResendPage, loadMessage, messagePage, messageParams, messageQuery, resend } from './message';
import { downloadMessageList, loadMessageList, messageListPage, messagesQuery } from './message-list';
import { loadOverview, overviewPage, overviewQuery } from './overview';
import { sendOverviewNumbers, sendOverviewScript } from './overview-live';
import { defaultZone, preferencesForm, preferencesPage, preferencesQuery, savePreferences } from './preferences';
import { CONSOLE_BASE } from './respond';
import { pathId, route, type ConsoleRoute } from './route-table';
import { deviceEdit, deviceEditQuery, schoolEdit, schoolEditQuery } from './school-device-edit';
import { editForm, saveEdit, showEdit } from './record-edit';
import {
  confirmRemoveEvents,
  eventsBody,
  eventsQuery,
  removeEvents,
  saveEvents,
  showEventsForm,
} from './school-events';
import { loadSchool, loadSchools, schoolPage, schoolQuery, schoolsPage, schoolsQuery } from './schools';
import { endSession } from './sessions';
import { studentEdit } from './student-edit';
import { findStudents, loadStudent, searchPage, searchQuery, studentPage, studentQuery } from './students';

const student = z.object({ id: pathId() });
const upload = z.object({ id: pathId(64) });
const account = z.object({ name: z.string().regex(ACCOUNT_NAME) });

export const CONSOLE_ROUTES: readonly ConsoleRoute[] = [
  route({
    method: 'get',
    path: '/',
    heavy: true,
    role: 'viewer',
    operation: 'overview',
    query: overviewQuery,
    handle: async (c, s, { query }) => overviewPage(s.view, await loadOverview(c, s.view, query.range)),
  }),
  // The overview's live figures and the script that asks for them (docs/console.md#overview).
  route({
    method: 'get',
    path: '/overview.js',
    role: 'viewer',
    operation: 'script',
    handle: (_c, s) => sendOverviewScript(s.req, s.res),
  }),
  route({
    method: 'get',
    path: '/overview.json',
    heavy: true,
    role: 'viewer',
    operation: 'overview',
    handle: (c, s) => sendOverviewNumbers(c, s.view, s.res),
  }),

  route({
    method: 'get',
    path: '/students',
    heavy: true,
    role: 'viewer',
    operation: 'students',
    query: searchQuery,
    handle: async (c, s, { query }) => searchPage(s.view, await findStudents(c, s, query)),
  }),
  route({
    method: 'get',
    path: '/students/{id}',
    role: 'viewer',
    operation: 'student',
    params: student,
    query: studentQuery,
    handle: async (c, s, { params, query }) =>
      studentPage(s.view, await loadStudent(c, s, params.id, false, query.saved)),
  }),
  route({
    method: 'get',
    path: '/students/{id}/edit',
    role: 'operator',
    operation: 'student-edit',
    params: student,
    handle: (c, s, { params }) => showEdit(c, s.view, studentEdit(params.id), params.id),
  }),
  route({
    method: 'post',
    path: '/students/{id}/edit',
    role: 'operator',
    operation: 'student-edit',
    params: student,
    body: editForm,
    handle: (c, s, { params, body }) => saveEdit(c, s, studentEdit(params.id), params.id, body),
  }),
  route({
    method: 'post',
    path: '/students/{id}/reveal',
    role: 'operator',
    operation: 'reveal-token',
    params: student,
    handle: async (c, s, { params }) => studentPage(s.view, await loadStudent(c, s, params.id, true)),
  }),

  route({
    method: 'get',
    path: '/messages',
    role: 'viewer',
    operation: 'messages',
    query: messagesQuery,
    handle: async (c, s, { query }) => messageListPage(s.view, await loadMessageList(c, s, query)),
  }),
  route({
    method: 'get',
    path: '/messages.csv',
    heavy: true,
    role: 'viewer',
    operation: 'messages-export',
    query: messagesQuery,
    handle: (c, s, { query }) => downloadMessageList(c, s, query),
  }),
  route({
    method: 'get',
    path: '/messages/{channel}/{id}',
    role: 'viewer',
    operation: 'message',
    params: messageParams,
    query: messageQuery,
    handle: async (c, s, { params, query }) => messagePage(s.view, await loadMessage(c, s, params, query)),
  }),
  route({
    method: 'get',
    path: '/messages/{channel}/{id}/resend',
    role: 'operator',
    operation: null,
    params: messageParams,
    handle: (_c, s, { params }) => confirmResendPage(s.view, params),
  }),
  route({
    method: 'post',
    path: '/messages/{channel}/{id}/resend',
    role: 'operator',
    operation: 'resend',
    params: messageParams,
    handle: (c, s, { params }) => resend(c, s, params),
  }),

  route({
    method: 'get',
    path: '/dead',
    role: 'viewer',
    operation: 'dead',
    query: deadListQuery,
    handle: async (c, s, { query }) => deadPage(s.view, await loadDead(c, query)),
  }),
  route({
    method: 'get',
    path: '/dead/resend',
    role: 'operator',
    operation: null,
    query: deadListQuery,
    handle: async (c, s, { query }) => confirmResendDeadPage(s.view, await loadResendDead(c, query.q)),
  }),
  route({
    method: 'post',
    path: '/dead/resend',
    role: 'operator',
    operation: 'resend-dead',
    body: deadResendForm,
    handle: (c, s, { body }) => resendDead(c, s, body),
  }),
  // Dismissing a dead letter (docs/console.md#dead-letters).
  route({
    method: 'post',
    path: '/dead/{channel}/{id}/dismiss',
    role: 'operator',
    operation: 'dismiss-dead',
    params: messageParams,
    body: dismissForm,
    handle: (c, s, { params, body }) => dismissDead(c, s, params, body),
  }),

  // The operator's preferences (docs/console.md#times).
  route({
    method: 'get',
    path: '/preferences',
    role: 'viewer',
    operation: 'preferences',
    query: preferencesQuery,
    handle: (c, s, { query }) => preferencesPage(s.view, c.now(), defaultZone(c), { saved: query.saved === '1' }),
  }),
  route({
    method: 'post',
    path: '/preferences',
    role: 'viewer',
    operation: 'preferences',
    body: preferencesForm,
    handle: (c, s, { body }) => savePreferences(c, s, body),
  }),

  route({
    method: 'get',
    path: '/schools',
    role: 'viewer',
    operation: 'schools',
    query: schoolsQuery,
    handle: async (c, s, { query }) => schoolsPage(s.view, await loadSchools(c, query.page)),
  }),
  route({
    method: 'get',
    path: '/schools/edit',
    role: 'operator',
    operation: 'school-edit',
    query: schoolEditQuery,
    handle: (c, s, { query }) => showEdit(c, s.view, schoolEdit(query.school), query.school),
  }),
  route({
    method: 'post',
    path: '/schools/edit',
    role: 'operator',
    operation: 'school-edit',
    query: schoolEditQuery,
    body: editForm,
    handle: (c, s, { query, body }) => saveEdit(c, s, schoolEdit(query.school), query.school, body),
  }),
  route({
    method: 'get',
    path: '/schools/events',
    role: 'operator',
    operation: 'school-events',
    query: eventsQuery,
    handle: (c, s, { query }) => showEventsForm(c, s, query.school),
  }),
  route({
    method: 'post',
    path: '/schools/events',
    role: 'operator',
    operation: 'school-events',
    query: eventsQuery,
    body: eventsBody,
    handle: (c, s, { query, body }) => saveEvents(c, s, query.school, body),
  }),
  route({
    method: 'get',
    path: '/schools/events/remove',
    role: 'operator',
    operation: 'school-events-remove',
    query: eventsQuery,
    handle: (c, s, { query }) => confirmRemoveEvents(c, s.view, query.school),
  }),
  route({
    method: 'post',
    path: '/schools/events/remove',
    role: 'operator',
    operation: 'school-events-remove',
    query: eventsQuery,
    handle: (c, s, { query }) => removeEvents(c, s, query.school),
  }),
  route({
    method: 'get',
    path: '/schools/students',
    role: 'viewer',
    operation: 'schools',
    query: schoolQuery,
    handle: async (c, s, { query }) => schoolPage(s.view, await loadSchool(c, s, query)),
  }),
  route({
    method: 'get',
    path: '/devices/{id}/edit',
    role: 'operator',
    operation: 'device-edit',
    params: student,
    query: deviceEditQuery,
    handle: (c, s, { params, query }) => showEdit(c, s.view, deviceEdit(params.id, query.student), params.id),
  }),
  route({
    method: 'post',
    path: '/devices/{id}/edit',
    role: 'operator',
    operation: 'device-edit',
    params: student,
    query: deviceEditQuery,
    body: editForm,
    handle: (c, s, { params, query, body }) => saveEdit(c, s, deviceEdit(params.id, query.student), params.id, body),
  }),

  route({
    method: 'get',
    path: '/audit',
    role: 'viewer',
    operation: 'audit',
    query: auditQuery,
    handle: async (c, s, { query }) => auditPage(s.view, await loadAudit(c, s, query)),
  }),

  route({
    method: 'post',
    path: '/sign-out',
    role: 'viewer',
    operation: 'sign-out',
    handle: async (c, s) => {
      await endSession(c, s.res, s.session);
      await s.audit({ outcome: 'allowed' });
      return { redirect: `${CONSOLE_BASE}/sign-in?out=1` };
    },
  }),

  route({
    method: 'get',
    path: '/accounts',
    role: 'admin',
    operation: 'accounts',
    query: accountsQuery,
    handle: async (c, s, { query }) => accountsPage(s.view, await loadAccounts(c, query)),
  }),
  route({
    method: 'post',
    path: '/accounts',
    role: 'admin',
    operation: 'account-add',
    body: accountForm,
    handle: (c, s, { body }) => addAccount(c, s, body),
  }),
  // A name an account cannot have is no account's page: 404, nothing asked or done
  // (`vwr%2Fdisable%3F` once made the removal's form disable `vwr`).
  route({
    method: 'get',
    path: '/accounts/{name}/remove',
    role: 'admin',
    operation: null,
    params: account,
    handle: (_c, s, { params }) => confirmRemovalPage(s.view, params.name),
  }),
  route({
    method: 'post',
    path: '/accounts/{name}/{change}',
    role: 'admin',
    operation: null,
    params: account.extend({ change: z.enum(['role', 'disable', 'enable', 'remove']) }),
    body: changeForm,
    handle: (c, s, { params, body }) => {
      s.record.operation = `account-${params.change}`;
      return changeAccount(c, s, params.name, params.change, body);
    },
  }),

  // The roster import (docs/console.md#import): models and views in import-page.ts, its jobs in import-jobs.ts.
  route({
    method: 'get',
    path: '/import',
    role: 'operator',
    operation: 'import',
    handle: (_c, s) => importFormPage(s.view, []),
  }),
  route({
    method: 'post',
    path: '/import',
    role: 'operator',
    operation: 'import-check',
    handle: (c, s) => receiveUpload(c, s),
  }),
  route({
    method: 'get',
    path: '/import/{id}',
    role: 'operator',
    operation: 'import',
    params: upload,
    handle: async (c, s, { params }) => uploadPage(s.view, await loadUpload(c, params.id)),
  }),
  route({
    method: 'post',
    path: '/import/{id}/apply',
    role: 'operator',
    operation: 'import-apply',
    params: upload,
    handle: (c, s, { params }) => applyUpload(c, s, params.id),
  }),
  route({
    method: 'get',
    path: '/import/{id}/{report}',
    role: 'operator',
    operation: 'import-report',
    params: upload.extend({
      report: z
        .string()
        .regex(/^(check|apply)\.(txt|json)$/)
        .transform((report) => {
          const [kind, format] = report.split('.') as ['check' | 'apply', 'txt' | 'json'];
          return { kind, format };
        }),
    }),
    handle: (c, s, { params }) => downloadReport(c, s, params.id, params.report.kind, params.report.format),
  }),
];
