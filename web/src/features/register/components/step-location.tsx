import { useState } from 'react';
import { SelectInput, TextInput } from '@/components/form';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';

/** The geolocation defaults. */
export const GEOLOCATION_OPTIONS: PositionOptions = { maximumAge: 30000, timeout: 27000, enableHighAccuracy: true };

type GeoState = 'idle' | 'asking' | 'done' | 'refused' | 'unavailable';

export function StepLocation({ form }: { form: RegisterForm }) {
  const { draft, update, touch, errorOf, t, cat } = form;
  const [geo, setGeo] = useState<GeoState>(draft.latitude !== null ? 'done' : 'idle');

  const locate = () => {
    if (!('geolocation' in navigator)) {
      setGeo('unavailable');
      return;
    }
    setGeo('asking');
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        update({ latitude: pos.coords.latitude, longitude: pos.coords.longitude });
        setGeo('done');
      },
      (err) => setGeo(err.code === err.PERMISSION_DENIED ? 'refused' : 'unavailable'),
      GEOLOCATION_OPTIONS,
    );
  };

  const maxKm = cat.limits.recommendDistanceKm?.max ?? 100;
  const km = Number(draft.recommendDistanceKm || '0');
  return (
    <>
      <div className="field">
        <span className="field-label">{t('register.locationTitle')}</span>
        <p className="field-hint">{t('hint.location')}</p>
        <button type="button" className="btn" onClick={locate} disabled={geo === 'asking'}>
          {geo === 'asking' ? t('register.locating') : t('register.useLocation')}
        </button>
        {geo === 'done' ? <p className="notice notice-ok" role="status">{t('register.locationSaved')}</p> : null}
        {geo === 'refused' || geo === 'unavailable' ? (
          <p className="notice" role="status">{t(geo === 'refused' ? 'register.locationRefused' : 'register.locationUnavailable')}</p>
        ) : null}
        {draft.latitude !== null ? (
          <button type="button" className="link-button" onClick={() => { update({ latitude: null, longitude: null }); setGeo('idle'); }}>
            {t('register.forgetLocation')}
          </button>
        ) : null}
        {errorOf('latitude') ? <p className="field-error" role="alert">{errorOf('latitude')}</p> : null}
      </div>
      <SelectInput name="city" label={t('field.city')} hint={geo === 'refused' ? t('hint.cityRefused') : undefined} placeholder={t('common.choose')} value={draft.city} options={cat.cities.map((c) => ({ value: c.code, label: t(c.key) }))} required={form.req('city')} onChange={(v) => update({ city: v })} onBlur={() => touch('city')} error={errorOf('city')} />
      <TextInput name="address" label={t('field.address')} hint={t('hint.address')} value={draft.address} required={form.req('address')} onChange={(v) => update({ address: v })} onBlur={() => touch('address')} error={errorOf('address')} autoComplete="street-address" />
      <div className={`field${errorOf('recommendDistanceKm') ? ' field-invalid' : ''}`} data-field="recommendDistanceKm">
        <label className="field-label" htmlFor="distance">{t('field.recommendDistanceKm')}</label>
        <p className="field-hint" id="distance-hint">{km === 0 ? t('register.distanceAny') : t('register.distanceKm', { km })}</p>
        <input id="distance" type="range" min={0} max={maxKm} step={5} value={km} aria-describedby="distance-hint" onChange={(e) => update({ recommendDistanceKm: e.target.value })} />
        {errorOf('recommendDistanceKm') ? <p className="field-error" role="alert">{errorOf('recommendDistanceKm')}</p> : null}
      </div>
    </>
  );
}
