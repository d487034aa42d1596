export {
  DEFAULT_TEMPLATES,
  renderNotification,
  type LocalisedText,
  type NotificationTemplate,
  type RenderedNotification,
} from './notification-templates';
export { schoolKey } from './school-key';
