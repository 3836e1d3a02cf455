/** The help pages, in the order the index lists them, and how to ask for a
 *  correction of what a reviewer checked (the edit form's name, birthday and gender link it). Kept
 *  out of the page's chunk so that /profile and the chat can link them without loading it. */
export const HELP_TOPICS = ['guidelines', 'safety', 'verified', 'corrections', 'terms', 'privacy'] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** The topic a `?topic=` query names, null for the index (or a topic that does not exist). */
export function topicFrom(search: string): HelpTopic | null {
  const topic = new URLSearchParams(search).get('topic');
  return (HELP_TOPICS as readonly string[]).includes(topic ?? '') ? (topic as HelpTopic) : null;
}
