import { beforeAll, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { extendMessages } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { loadCore } from '@/lib/wasm';
import { englishScreens, renderScreen } from '@/test/render';
import { reviewApi } from '@/features/review/api/review-api';
import { EmployersMissing } from '@/features/review/components/employers-missing';

type Missing = Awaited<ReturnType<typeof reviewApi.employersMissing>>;
const missing = (...members: Missing['members']): Missing => ({ members });
const MEI = { profileId: 3, nickname: 'Mei' };
const UNNAMED = { profileId: 5, nickname: null };

/** The list, its rows by profile id, and the catalogue's employers (the real core's). */
async function show(...answers: Missing[]) {
  const load = vi.spyOn(reviewApi, 'employersMissing');
  for (const answer of answers) load.mockResolvedValueOnce(answer);
  load.mockResolvedValue(answers.at(-1)!);
  const onOpen = vi.fn();
  const view = renderScreen(<EmployersMissing onOpen={onOpen} />);
  const row = (id: number) => screen.getByTestId('employers-missing').querySelector<HTMLElement>(`[data-profile-id="${id}"]`);
  return { load, onOpen, view, row };
}

describe('members without an employer on record, in the console', () => {
  let tsmc: { id: string; name: string };

  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
    tsmc = (await loadCore()).catalogues().employers.find((e) => e.id === 'tsmc')!;
  });

  it('shows nothing while every approved member has one', async () => {
    const { load, view } = await show(missing());
    await waitFor(() => expect(load).toHaveBeenCalled());
    // The answer is in (and drawn) before anything is looked at.
    await act(async () => {
      await load.mock.results[0]!.value;
    });
    expect(screen.queryByTestId('employers-missing')).toBeNull();
    expect(view.container.textContent).toBe('');
  });

  it('lists each member by nickname (or profile id) with the catalogue’s employers, and opens a profile', async () => {
    const { onOpen, row } = await show(missing(MEI, UNNAMED));
    await screen.findByRole('heading', { name: 'Members without an employer on record' });
    expect(screen.getAllByTestId('employer-missing').map((li) => li.dataset.profileId)).toEqual(['3', '5']);
    expect(within(row(5)!).getByRole('button', { name: '#5' })).toBeTruthy();
    const pick = within(row(3)!).getByRole('combobox', { name: 'Employer on record' });
    await waitFor(() => expect(within(pick).getByRole('option', { name: tsmc.name })).toBeTruthy());
    await userEvent.click(within(row(3)!).getByRole('button', { name: 'Mei' }));
    expect(onOpen).toHaveBeenCalledWith(3);
  });

  it('sets an employer only once one is chosen, then the member leaves the list', async () => {
    const set = vi.spyOn(reviewApi, 'setEmployer').mockResolvedValue({ id: tsmc.id, name: tsmc.name });
    const { load, row } = await show(missing(MEI, UNNAMED), missing(UNNAMED));
    await screen.findByTestId('employers-missing');
    const save = within(row(3)!).getByRole('button', { name: 'Set' });
    expect((save as HTMLButtonElement).disabled).toBe(true);
    const pick = within(row(3)!).getByRole('combobox', { name: 'Employer on record' });
    await waitFor(() => expect(within(pick).getByRole('option', { name: tsmc.name })).toBeTruthy());
    await userEvent.selectOptions(pick, tsmc.id);
    expect((save as HTMLButtonElement).disabled).toBe(false);
    await userEvent.click(save);
    expect(set).toHaveBeenCalledWith(3, tsmc.id);
    await waitFor(() => expect(row(3)).toBeNull());
    expect(load).toHaveBeenCalledTimes(2);
    expect(row(5)).not.toBeNull();
  });

  it('says why a save was refused and keeps the member listed', async () => {
    vi.spyOn(reviewApi, 'setEmployer').mockRejectedValue(new ApiError('E003', 'no approved profile 3', 404));
    const { row } = await show(missing(MEI));
    await screen.findByTestId('employers-missing');
    const pick = within(row(3)!).getByRole('combobox', { name: 'Employer on record' });
    await waitFor(() => expect(within(pick).getByRole('option', { name: tsmc.name })).toBeTruthy());
    await userEvent.selectOptions(pick, tsmc.id);
    await userEvent.click(within(row(3)!).getByRole('button', { name: 'Set' }));
    expect((await screen.findByRole('alert')).textContent).toBe('no approved profile 3');
    expect(row(3)).not.toBeNull();
  });
});
