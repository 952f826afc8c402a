import type { Db } from '@/db/connection';
import { getUserInstructions, setUserInstructions } from '@/db/queries/users';
import { AppError } from '@/lib/http/errors';
import { checkedInstructions } from '@/lib/instructions';

/** What the account page shows and `PUT /api/account/instructions` answers: '' when there are none. */
export interface InstructionsView {
  text: string;
}

export async function personalInstructions(db: Db, userId: string): Promise<InstructionsView> {
  return { text: (await getUserInstructions(db, userId)) ?? '' };
}

/** The person's own instructions for every conversation; empty text clears them. They apply from the next model step. */
export async function setPersonalInstructions(db: Db, userId: string, text: string): Promise<InstructionsView> {
  const checked = checkedInstructions(text, 'personal');
  if ('problem' in checked) throw new AppError('bad_request', 'body', `text: ${checked.problem}`, 'text');
  if (!(await setUserInstructions(db, userId, checked.text))) throw new AppError('unauthorized', 'session', 'Sign in to continue.');
  return { text: checked.text ?? '' };
}
