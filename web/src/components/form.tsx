import { createContext, use, useId, type ReactNode } from 'react';

/** The fields a reviewer asked to change (a REJECTED member's form): each is marked, with a word
 *  saying so. Empty outside a resubmission. */
export const FlaggedFields = createContext<{ fields: ReadonlySet<string>; label: string }>({ fields: new Set(), label: '' });

/** Whether `name` is flagged, as the class to add and the word to show under its label. */
export function useFlag(name: string | undefined): { className: string; marker: ReactNode } {
  const flagged = use(FlaggedFields);
  if (!name || !flagged.fields.has(name)) return { className: '', marker: null };
  return {
    className: ' field-flagged',
    marker: (
      <p className="field-flag" data-testid="field-flag">
        {flagged.label}
      </p>
    ),
  };
}

/** Shared form controls: every input has a label, its hint and its error tied by aria-describedby. */
export interface FieldProps {
  label: string;
  hint?: string;
  error?: string | null;
  required?: boolean;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  name?: string;
}

export function Field({ label, hint, error, required, children, name }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const flag = useFlag(name);
  return (
    <div className={`field${error ? ' field-invalid' : ''}${flag.className}`} data-field={name}>
      <label htmlFor={id} className="field-label">
        {label}
        {required ? <span className="required" aria-hidden="true"> *</span> : null}
      </label>
      {flag.marker}
      {hint ? <p id={hintId} className="field-hint">{hint}</p> : null}
      {children({ id, describedBy, invalid: Boolean(error) })}
      {error ? <p id={errorId} className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectInput(props: {
  label: string;
  value: string;
  options: Option[];
  onChange: (v: string) => void;
  onBlur?: () => void;
  error?: string | null;
  hint?: string;
  placeholder: string;
  required?: boolean;
  name: string;
  /** Shown but not changeable (an approved member's gender). */
  disabled?: boolean;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint} required={props.required} name={props.name}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          name={props.name}
          className="input"
          value={props.value}
          disabled={props.disabled}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onChange={(e) => props.onChange(e.target.value)}
          onBlur={props.onBlur}
        >
          <option value="">{props.placeholder}</option>
          {props.options.map((o) => (
            <option key={o.value} value={o.value}>{o.label}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function TextInput(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  onBlur?: () => void;
  error?: string | null;
  hint?: string;
  type?: 'text' | 'email' | 'url' | 'date' | 'number' | 'tel';
  inputMode?: 'numeric' | 'decimal' | 'email' | 'url' | 'text';
  autoComplete?: string;
  required?: boolean;
  name: string;
  multiline?: boolean;
  maxLength?: number;
  min?: number | string;
  max?: number | string;
  placeholder?: string;
  /** Shown but not changeable (an approved member's name and birthday). */
  readOnly?: boolean;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint} required={props.required} name={props.name}>
      {({ id, describedBy, invalid }) =>
        props.multiline ? (
          <textarea
            id={id}
            name={props.name}
            className="input textarea"
            value={props.value}
            rows={4}
            maxLength={props.maxLength}
            placeholder={props.placeholder}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            onChange={(e) => props.onChange(e.target.value)}
            onBlur={props.onBlur}
          />
        ) : (
          <input
            id={id}
            name={props.name}
            className="input"
            type={props.type ?? 'text'}
            inputMode={props.inputMode}
            autoComplete={props.autoComplete ?? 'off'}
            value={props.value}
            min={props.min}
            max={props.max}
            maxLength={props.maxLength}
            placeholder={props.placeholder}
            readOnly={props.readOnly}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            onChange={(e) => props.onChange(e.target.value)}
            onBlur={props.onBlur}
          />
        )
      }
    </Field>
  );
}

/** A group of toggle chips (checkboxes, or radios when `single`). */
export function ChipGroup(props: {
  legend: string;
  options: Option[];
  selected: string[];
  onToggle: (value: string) => void;
  single?: boolean;
  error?: string | null;
  hint?: string;
  name: string;
  required?: boolean;
}) {
  const id = useId();
  const flag = useFlag(props.name);
  return (
    <fieldset
      className={`field chip-field${props.error ? ' field-invalid' : ''}${flag.className}`}
      data-field={props.name}
      aria-describedby={[props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}
    >
      <legend className="field-label">
        {props.legend}
        {props.required ? <span className="required" aria-hidden="true"> *</span> : null}
      </legend>
      {flag.marker}
      {props.hint ? <p id={`${id}-hint`} className="field-hint">{props.hint}</p> : null}
      <div className="chips">
        {props.options.map((o) => {
          const checked = props.selected.includes(o.value);
          return (
            <label key={o.value} className={`chip${checked ? ' chip-on' : ''}`}>
              <input
                type={props.single ? 'radio' : 'checkbox'}
                name={`${id}-${props.name}`}
                value={o.value}
                checked={checked}
                onChange={() => props.onToggle(o.value)}
              />
              <span>{o.label}</span>
            </label>
          );
        })}
      </div>
      {props.error ? <p id={`${id}-error`} className="field-error" role="alert">{props.error}</p> : null}
    </fieldset>
  );
}
