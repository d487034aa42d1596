export {
  importFiles,
  type CollectionReport,
  type FileReport,
  type ImportFile,
  type ImportOptions,
  type ImportReport,
} from './importer';
export { formatImportReport } from './report-text';
export { exportDataSet, JSON_EXPORT_FILE, type ExportFormat } from './export-data-set';
export { terminalProgress, silentProgress, type Progress } from './progress';
export { FIELDS } from './format';
export { readSource } from './read-source';
export { SourceError, type Source } from './source';
export { DEFAULT_MAX_ROWS, LISTED_REJECTIONS_MAX, type ReadLimits } from './read-limits';
export { repairNulRecords, formatNulRecords, REPAIR_SOURCE, type NulRecord, type NulRepair } from './repair-nul';
