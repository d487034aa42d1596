export {
  DEFAULT_TEMPLATES,
  renderNotification,
  type LocalisedText,
  type NotificationTemplate,
  type RenderedNotification,
} from './notification-templates';
export {
  DEFAULT_OPTIONS,
  MessageOptionsSchema,
  OptionsByTypeSchema,
  parseResolvedOptions,
  resolveOptions,
  type MessageOptions,
  type OptionsByType,
  type ResolvedOptions,
} from './message-options';
export {
  DEFAULT_TIME_ZONE,
  isTimeZone,
  parseQuietHours,
  quietHoursEnd,
  QUIET_HOURS_SYNTAX,
  type QuietHours,
} from './school-time';
export { schoolKey } from './school-key';
export {
  DEFAULT_FCM_PROJECT,
  FCM_PROJECT_NAME,
  FCM_PROJECT_NAME_MAX,
  isKnownFcmProject,
  knownFcmProjects,
  setKnownFcmProjects,
} from './fcm-project';
