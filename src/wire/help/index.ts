// The help pages (docs/design.md#help-pages, rules 24-25, and the service's own root page).
export { renderOperationList } from './operation-list';
export { renderOperationPage } from './operation-page';
export { renderServiceList } from './service-list';
export { sendHelpPage } from './send-page';
export {
  operationSamples,
  type Binding,
  type Sample,
  type SampleTarget,
  type SampleText,
  type SampleToken,
} from './samples';
