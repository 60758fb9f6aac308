// The tabs (WAI-ARIA tab pattern): which is selected, by click or by arrow keys.
import { type CacheLabTab } from '../../src/protocol/cache-lab-protocol.ts';
import { tabs } from './layout.ts';
import { replaceState, saveState, state } from './page.ts';

export function selectTab(id: CacheLabTab, focus: boolean): void {
  for (const t of tabs) {
    const selected = t.id === id;
    t.tab.setAttribute('aria-selected', String(selected));
    t.tab.tabIndex = selected ? 0 : -1;
    t.panel.hidden = !selected;
    if (selected && focus) t.tab.focus();
  }
}

for (const [index, t] of tabs.entries()) {
  t.tab.addEventListener('click', () => {
    replaceState({ ...state, tab: t.id });
    saveState();
    selectTab(t.id, true);
  });
  t.tab.addEventListener('keydown', (event) => {
    const last = tabs.length - 1;
    const target = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    replaceState({ ...state, tab: tabs[target]!.id });
    saveState();
    selectTab(state.tab, true);
  });
}
