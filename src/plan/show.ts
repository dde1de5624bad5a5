/** Display values for field changes: what people read in a plan, never ids where a name exists. */

export interface ShownStep {
  description: string;
  expected: string;
  /** the step group (human id or local key) the step comes from */
  group?: string;
}

/**
 * Steps one per block, so that a changed step shows as a small line diff:
 * `1. Open /login` / `   expect: The login form shows` / `   from step group SHOP-SG-3`.
 */
export function showSteps(steps: readonly ShownStep[]): string {
  return steps
    .map((s, i) => {
      const lines = [`${i + 1}. ${indent(s.description)}`];
      if (s.expected !== '') lines.push(`   expect: ${indent(s.expected)}`);
      if (s.group !== undefined) lines.push(`   from step group ${s.group}`);
      return lines.join('\n');
    })
    .join('\n');
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n   ');
}
