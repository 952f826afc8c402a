// `npm run set-plan -- <email> <free|pro|enterprise>`: changes a user's plan.
import { setUserPlan } from '../db/queries/users';
import { isOneOf, PLANS } from '../db/vocabulary';
import { getDbHandle } from '../lib/server/database';

const [email, plan] = process.argv.slice(2);
if (!email || !plan) {
  console.error(`Usage: npm run set-plan -- <email> <${PLANS.join('|')}>`);
  process.exit(2);
}
if (!isOneOf(PLANS, plan)) {
  console.error(`Unknown plan "${plan}": a plan is one of ${PLANS.join(', ')}.`);
  process.exit(2);
}
const handle = await getDbHandle();
const user = await setUserPlan(handle.db, email, plan);
await handle.close();
if (!user) {
  console.error(`No user with email ${email}.`);
  process.exit(1);
}
console.log(`${user.email} is now on the ${user.plan} plan.`);
