import { ACTION_ORDER, SYMBOLS, actionOf, changesOf, detailedInCompact, diffLines, folderRows, headingOf, isCompact, isLong, unmanagedHeading, type Action } from './describe.js';
import type { PlanDisplay } from './display.js';
import type { FieldChange, Operation, Plan } from './operations.js';
import { summaryLine } from './summary.js';
import { byItem, CONFLICTS_HEADING, conflictSettled, conflictWaysOut, REMOTE_CHANGES_HEADING, REMOTE_CHANGES_NOTE, withoutBaseLine } from './render-sync.js';
import type { SyncItem } from './operations.js';
import { safeInline, safeLine, safeLines, safeLineStarts, safeMarkdown } from '../safe-text.js';

interface RenderMarkdownOptions {
  /** the comment stays below this many characters; details beyond are cut with a note
   * @default 65000 (GitHub refuses comments over 65,536) */
  maxChars?: number;
  /**
   * a table per folder with counts, details only for updates and deletes (`--compact`); false:
   * every item in detail; unset: compact above `COMPACT_ABOVE` operations (describe.ts)
   */
  compact?: boolean | undefined;
  /** what `buildPlan` returned beside the plan, to show a new case's values (`PlanDisplay`); a saved plan needs none */
  display?: PlanDisplay | undefined;
}

/** The first line of every plan comment, so CI can find and update its own comment. */
export const PLAN_COMMENT_MARKER = '<!-- tmsync-plan -->';

const TITLES: Record<Action, string> = { create: 'Create', update: 'Update', move: 'Move', delete: 'Delete', adopt: 'Adopt (ids written back)' };
/** room kept for the closing tags and the note about cut items */
const RESERVE = 600;

/**
 * The plan as a pull-request comment: marker, summary line, a red banner when anything is
 * deleted, then one `<details>` per section. Items that would push the comment past `maxChars`
 * are cut, and a note says how many.
 */
export function renderPlanMarkdown(plan: Plan, options: RenderMarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? 65_000;
  const head: string[] = [PLAN_COMMENT_MARKER, `**${summaryLine(plan)}**`, ''];
  head.push(`Project ${code(plan.project.humanIdPrefix)} (${escape(plan.project.name)})${plan.prune ? ' · `--prune`' : ''}`, '');
  if (plan.summary.delete > 0) {
    const deleted = plan.operations.filter((o) => actionOf(o) === 'delete');
    const counts = countTypes(deleted);
    head.push('> [!CAUTION]', `> 🟥 **This plan deletes ${deleted.length} item${deleted.length === 1 ? '' : 's'} from the service** (${counts}). Review the Delete section before applying.`, '');
  }
  const conflicts = plan.sync?.conflicts ?? [];
  if (conflicts.length > 0) {
    const settled = plan.sync?.prefer;
    head.push(
      settled ? '> [!NOTE]' : '> [!WARNING]',
      `> **${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'} with the service** (changed on both sides since the last sync)${settled ? `: ${conflictSettled(settled)}.` : `. This plan cannot be applied: ${conflictWaysOut()}.`}`,
      '',
    );
  }
  let text = head.join('\n');
  let cut = 0;
  const budget = maxChars - RESERVE;

  const sections: { title: string; items: string[] }[] = [];
  // conflicts first: they decide whether the plan can be applied at all
  if (conflicts.length > 0) {
    sections.push({
      title: `${CONFLICTS_HEADING} (${conflicts.length})`,
      items: byItem(conflicts).map(({ item, entries }) =>
        syncBlock(item, entries.flatMap((c) => [`@@ ${safeInline(c.field)} @@`, ...lines('- repository: ', c.local), ...lines('+ service:    ', c.remote)])),
      ),
    });
  }
  const compact = isCompact(plan, options.compact);
  if (compact && plan.operations.length > 0) {
    const used = ACTION_ORDER.filter((a) => plan.operations.some((op) => actionOf(op) === a));
    const rows = folderRows(plan.operations).map((r) => `| ${escape(r.where)} | ${used.map((a) => r.counts[a]).join(' | ')} |`);
    sections.push({
      title: `Per folder (${plan.operations.length} operation${plan.operations.length === 1 ? '' : 's'})`,
      items: [`| Folder | ${used.map((a) => `${SYMBOLS[a]} ${a}`).join(' | ')} |`, `|---|${used.map(() => '---:|').join('')}`, ...rows],
    });
  }
  for (const action of ACTION_ORDER) {
    if (compact && !detailedInCompact(action)) continue;
    const ops = plan.operations.filter((o) => actionOf(o) === action);
    if (ops.length > 0) sections.push({ title: `${SYMBOLS[action]} ${TITLES[action]} (${ops.length})`, items: ops.map((op) => renderOp(op, options.display)) });
  }
  const remoteChanges = plan.sync?.remoteChanges ?? [];
  if (remoteChanges.length > 0) {
    sections.push({
      title: `${REMOTE_CHANGES_HEADING} (${remoteChanges.length})`,
      items: [
        `${REMOTE_CHANGES_NOTE[0].toUpperCase()}${REMOTE_CHANGES_NOTE.slice(1)}.`,
        '',
        ...byItem(remoteChanges).map(({ item, entries }) => syncBlock(item, entries.flatMap((c) => changeLines(c, false)))),
      ],
    });
  }
  const kept = plan.unmanaged.filter((u) => !u.pruned);
  if (kept.length > 0) {
    sections.push({
      title: `Not managed by this repository (${kept.length})`,
      items: [
        plan.prune ? 'Kept although `--prune` is set (still in use):' : '`--prune` would delete these:',
        ...kept.map((u) => {
          const h = unmanagedHeading(u);
          return `- ${h.type} ${h.humanId ? `${code(h.humanId)} ` : ''}${escape(h.name)}`;
        }),
      ],
    });
  }
  if (plan.warnings.length > 0) {
    sections.push({ title: `Warnings (${plan.warnings.length})`, items: plan.warnings.map((w) => `- ⚠️ ${w.file ? `${code(w.file)}: ` : ''}${escape(w.message)}`) });
  }

  for (const s of sections) {
    const open = `\n<details><summary>${s.title}</summary>\n\n`;
    const close = '\n</details>\n';
    if (text.length + open.length + close.length > budget) {
      cut += s.items.length;
      continue;
    }
    text += open;
    for (const unguarded of s.items) {
      // no line begins with what a CI runner takes for a command, also inside a diff (`safe-text.ts`)
      const item = safeLineStarts(unguarded);
      if (text.length + item.length + 1 + close.length > budget) {
        cut++;
        continue;
      }
      text += `${item}\n`;
    }
    text += close;
  }
  const noBase = withoutBaseLine(plan);
  if (noBase) text += `\n${escape(noBase)}\n`;
  if (cut > 0) {
    text +=
      `\n> [!NOTE]\n> ${cut} item${cut === 1 ? ' was' : 's were'} cut to keep this comment under ${maxChars.toLocaleString('en-US')} characters. ` +
      'Run `tmsync plan` locally, or save it with `--out`, for the full plan.\n';
  }
  return text;
}

function countTypes(ops: Operation[]): string {
  const counts = new Map<string, number>();
  for (const op of ops) {
    const t = headingOf(op).type;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts].map(([t, n]) => `${n} ${t}${n === 1 ? '' : 's'}`).join(', ');
}

function renderOp(op: Operation, display: PlanDisplay | undefined): string {
  const h = headingOf(op);
  const symbol = SYMBOLS[actionOf(op)];
  const line = `- \`${symbol}\` ${h.type} ${h.humanId ? `${code(h.humanId)} ` : ''}**${escape(h.name)}**${h.note ? ` — ${escape(h.note)}` : ''}`;
  const changes = changesOf(op, display);
  if (changes.length === 0) return line;
  const body = changes.flatMap((c) => changeLines(c, actionOf(op) === 'create'));
  const fence = fenceFor(body.join('\n'));
  return [line, '', `  ${fence}diff`, ...body.map((l) => `  ${l}`), `  ${fence}`, ''].join('\n');
}

function changeLines(c: FieldChange, isCreate: boolean): string[] {
  const field = `@@ ${safeInline(c.field)} @@`;
  if (isCreate) return [field, ...safeLines(c.to).map((l) => `+ ${l}`)];
  if (!isLong(c)) return [field, `- ${safeLine(c.from)}`, `+ ${safeLine(c.to)}`];
  return [field, ...diffLines(c).filter((l) => !l.startsWith('@@'))];
}

/** A code fence longer than any run of backticks inside, so texts cannot break out of it. */
function fenceFor(content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

const escape = safeMarkdown;

/** An id or a path as inline code: on its line, in a span longer than any run of backticks in it. */
function code(text: string): string {
  const safe = safeInline(text);
  const fence = '`'.repeat(Math.max(0, ...[...safe.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return fence.length > 1 || safe.startsWith('`') || safe.endsWith('`') ? `${fence} ${safe} ${fence}` : `${fence}${safe}${fence}`;
}

function syncBlock(item: SyncItem, body: string[]): string {
  const h = unmanagedHeading({ ...item, pruned: false });
  const line = `- ${h.type} ${h.humanId ? `${code(h.humanId)} ` : ''}**${escape(h.name)}**`;
  const fence = fenceFor(body.join('\n'));
  return [line, '', `  ${fence}diff`, ...body.map((l) => `  ${l}`), `  ${fence}`, ''].join('\n');
}

function lines(prefix: string, value: string): string[] {
  return safeLines(value).map((l, i) => (i === 0 ? `${prefix}${l}` : `${' '.repeat(prefix.length)}${l}`));
}
