/** `1 folder`, `2 folders`; `plural` for words whose plural is not the singular with an `s`. */
export function plural(n: number, singular: string, pluralWord = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralWord}`;
}
