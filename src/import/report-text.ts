// The import summary as people read it at the end of `npm run import`.
import type { FileReport, ImportReport } from './importer';

// Past this many, a file's rejected rows are counted rather than listed.
const LISTED_REJECTIONS = 50;

const n = (value: number): string => value.toLocaleString('en-US');

function fileLines(file: FileReport): string[] {
  if (file.status === 'failed' && file.collections.length === 0)
    return [`${file.file}: not imported. ${file.error ?? ''}`.trimEnd()];
  const lines: string[] = [];
  const verb = {
    written: '',
    checked: ' (checked only, --dry-run)',
    not_written: ' (not written, --strict)',
    failed: ' (not written)',
  }[file.status];
  lines.push(`${file.file}${verb}:`);
  for (const c of file.collections) {
    const written =
      c.inserted === null ? `${n(c.accepted)} accepted` : `${n(c.inserted)} inserted, ${n(c.updated ?? 0)} updated`;
    lines.push(`  ${c.collection}: ${written}, ${n(c.rejected)} rejected`);
    if (c.inserted !== null && c.inserted + (c.updated ?? 0) < c.accepted) {
      lines.push(
        `    (${n(c.accepted - c.inserted - (c.updated ?? 0))} rows repeated a key of the same file; the last one was kept)`,
      );
    }
  }
  if (file.error !== null) lines.push(`  ${file.error}`);
  for (const r of file.rejected.slice(0, LISTED_REJECTIONS))
    lines.push(`  ${file.position ?? 'line'} ${r.line} (${r.collection}): ${r.reason}`);
  // Counted from the collections: past its first ones, a report lists no more rows (src/import/read-limits.ts).
  const shown = Math.min(file.rejected.length, LISTED_REJECTIONS);
  const more = file.collections.reduce((sum, c) => sum + c.rejected, 0) - shown;
  if (more > 0) lines.push(`  ... and ${n(more)} more rejected rows`);
  for (const note of file.notes) lines.push(`  note: ${note}`);
  return lines;
}

export function formatImportReport(report: ImportReport): string {
  const lines = report.files.flatMap(fileLines);
  const all = report.files.flatMap((f) => f.collections);
  const inserted = all.reduce((sum, c) => sum + (c.inserted ?? 0), 0);
  const updated = all.reduce((sum, c) => sum + (c.updated ?? 0), 0);
  const rejected = all.reduce((sum, c) => sum + c.rejected, 0);
  const failed = report.files.filter((f) => f.status === 'failed').length;
  if (report.refused) {
    lines.push(
      `Refused (--strict): ${n(rejected)} rejected rows${failed > 0 ? ` and ${failed} unreadable files` : ''}; nothing was written.`,
    );
  } else {
    lines.push(
      `Total: ${n(inserted)} inserted, ${n(updated)} updated, ${n(rejected)} rejected${failed > 0 ? `, ${failed} files not imported` : ''}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
