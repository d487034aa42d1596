export { schoolKey } from './school-key';
