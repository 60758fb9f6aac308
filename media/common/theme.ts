// Chart colours come from VS Code's theme variables (set on <html> by the webview host), read with
// getComputedStyle, and are read again when the theme changes: VS Code swaps the body's class
// (vscode-light, vscode-dark, vscode-high-contrast, vscode-high-contrast-light) and the variables.

export interface ThemeColours {
  foreground: string;
  muted: string;
  grid: string;
  background: string;
  fontFamily: string;
  fontSize: number;
  /** One colour per series, in order; the first is today's Git. */
  series: string[];
  highContrast: boolean;
}

const SERIES_VARIABLES: [string, string][] = [
  ['--vscode-charts-blue', '#3794ff'],
  ['--vscode-charts-orange', '#d18616'],
  ['--vscode-charts-green', '#89d185'],
  ['--vscode-charts-purple', '#b180d7'],
  ['--vscode-charts-yellow', '#cca700'],
  ['--vscode-charts-red', '#f14c4c'],
  ['--vscode-terminal-ansiCyan', '#11a8cd'],
  ['--vscode-charts-foreground', '#cccccc'],
];

function variable(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const value = style.getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

export function readThemeColours(): ThemeColours {
  const style = getComputedStyle(document.documentElement);
  const body = document.body.classList;
  const foreground = variable(style, '--vscode-foreground', body.contains('vscode-light') ? '#3b3b3b' : '#cccccc');
  return {
    foreground,
    muted: variable(style, '--vscode-descriptionForeground', foreground),
    grid: variable(style, '--vscode-charts-lines', 'rgba(128, 128, 128, 0.35)'),
    background: variable(style, '--vscode-editor-background', body.contains('vscode-light') ? '#ffffff' : '#1f1f1f'),
    fontFamily: variable(style, '--vscode-font-family', 'system-ui, sans-serif'),
    fontSize: Number.parseFloat(variable(style, '--vscode-font-size', '13')) || 13,
    series: SERIES_VARIABLES.map(([name, fallback]) => variable(style, name, fallback)),
    highContrast: body.contains('vscode-high-contrast') || body.contains('vscode-high-contrast-light'),
  };
}

/** Calls `onChange` when the body's theme class or <html>'s variables change. */
export function watchTheme(onChange: () => void): MutationObserver {
  let scheduled = false;
  const observer = new MutationObserver(() => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      onChange();
    });
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return observer;
}
