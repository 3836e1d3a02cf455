import type { ReactNode } from 'react';

/** A profile setting's card: one switch with its label and the help text that describes it. The
 *  switch shows `loading` (disabled) until the setting is known (`on` null), and is busy while a
 *  save is under way; the setting's own component owns the loading and saving. */
export function SwitchCard({
  name,
  switchTestId = name,
  on,
  saving,
  label,
  help,
  onChange,
}: {
  /** The card's test id is `<name>-card`, the help's element id `<name>-help`. */
  name: string;
  /** The switch's test id (`name` unless given). */
  switchTestId?: string;
  on: boolean | null;
  saving: boolean;
  label: string;
  help: ReactNode;
  onChange(next: boolean): void;
}) {
  return (
    <div className="card" data-testid={`${name}-card`}>
      <label className="check morning-push">
        <input
          type="checkbox"
          role="switch"
          checked={on ?? false}
          disabled={on === null}
          aria-busy={saving}
          aria-describedby={`${name}-help`}
          onChange={(e) => onChange(e.target.checked)}
          data-testid={switchTestId}
          data-state={on === null ? 'loading' : on ? 'on' : 'off'}
        />
        <span>{label}</span>
      </label>
      <p id={`${name}-help`} className="muted">{help}</p>
    </div>
  );
}
