/**
 * How the person's instructions travel in a model step's system text: each in a block of its own
 * after the app's system prompt, labelled as the person's words and fenced by a tag, so the model
 * (and the offline demo model, which acknowledges them) can tell them from the app's own prompt.
 */
export const INSTRUCTIONS_TAGS = { personal: 'personal_instructions', conversation: 'conversation_instructions' } as const;

const LABELS = {
  personal: 'The person you are talking with gave these instructions for every conversation (how to answer, who they are):',
  conversation:
    'They gave these instructions for this conversation; where they differ from their instructions for every conversation, these win:',
} as const;

export type InstructionsScope = keyof typeof INSTRUCTIONS_TAGS;

/** The system text that carries one kind of the person's instructions. */
export function instructionsSystemText(scope: InstructionsScope, text: string): string {
  const tag = INSTRUCTIONS_TAGS[scope];
  return `${LABELS[scope]}\n<${tag}>\n${text}\n</${tag}>`;
}

/** The instructions a system text carries, by kind (what instructionsSystemText wrote), for the demo model. */
export function instructionsIn(system: string): Partial<Record<InstructionsScope, string>> {
  const found: Partial<Record<InstructionsScope, string>> = {};
  for (const scope of Object.keys(INSTRUCTIONS_TAGS) as InstructionsScope[]) {
    const tag = INSTRUCTIONS_TAGS[scope];
    const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(system);
    if (m) found[scope] = m[1]!;
  }
  return found;
}
