// The header's navigation and tools behind a menu button on a phone
// (docs/console.md#on-a-phone): a <details> disclosure, no script. On a
// wide screen the stylesheet shows its content whether it is open or not and
// hides the button; on a phone the header is one line (the name and
// `Menu`), and the button opens the navigation below it. A browser that
// cannot style a closed <details>'s content shows the button on every
// screen.
import { html, type Html, type HtmlValue } from '../shared/markup';
import type { View } from './view';

const MENU: Readonly<Record<View['lang'], string>> = { en: 'Menu', ar: 'القائمة' };

export function headerMenu(view: View, nav: HtmlValue, tools: Html): Html {
  // Signed out there is no navigation: the language link alone fits on the line.
  if (view.session === null) return tools;
  return html`<details class="menu"><summary>${MENU[view.lang]}</summary><div class="menu-body">
${nav}
${tools}
</div></details>`;
}
