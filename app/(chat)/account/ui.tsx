// Small building blocks of the account page, in the style of the other forms (auth-form.tsx).

export function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-2xl border border-stone-200 bg-white p-6 shadow-sm">
      <h2 id={id} className="mb-4 text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function TextField(props: {
  id: string;
  label: string;
  type?: string;
  autoComplete?: string;
  value: string;
  onChange: (value: string) => void;
  minLength?: number;
  hint?: string;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="mb-1 block text-sm font-medium text-stone-700">
        {props.label}
      </label>
      <input
        id={props.id}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        required
        minLength={props.minLength}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        className={[
          'w-full rounded-lg border border-stone-300 px-3',
          'py-2 text-[15px] outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-200',
        ].join(' ')}
      />
      {props.hint && <p className="mt-1 text-xs text-stone-500">{props.hint}</p>}
    </div>
  );
}

export function Notice({ kind, children }: { kind: 'error' | 'success'; children: React.ReactNode }) {
  if (kind === 'error') {
    return (
      <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800">
        {children}
      </p>
    );
  }
  return (
    <p role="status" className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
      {children}
    </p>
  );
}

const BUTTON = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-700',
  secondary: 'border border-stone-300 hover:bg-stone-50',
  danger: 'bg-red-700 text-white hover:bg-red-800',
};

export function Button({
  kind = 'primary',
  disabled,
  onClick,
  type = 'submit',
  children,
}: {
  kind?: keyof typeof BUTTON;
  disabled?: boolean;
  onClick?: () => void;
  type?: 'submit' | 'button';
  children: React.ReactNode;
}) {
  return (
    <button
      type={type}
      disabled={disabled}
      onClick={onClick}
      className={`rounded-lg px-3 py-2 text-sm font-semibold disabled:opacity-60 ${BUTTON[kind]}`}
    >
      {children}
    </button>
  );
}
