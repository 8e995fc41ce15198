/**
 * An engine message says what to change in the command line's words (`--kv-memory`); in VS Code the
 * same option is a setting. This names the setting where the message names a flag that is one, so
 * the notification can offer Open Settings on it. Pure: the session shows the text, tests read it.
 */
import { optionSettings, SETTINGS_SECTION } from '../../service';

/** `--flag` → `reachAudit.key`, for every audit option that is a setting. */
const SETTING_OF_FLAG: ReadonlyMap<string, string> = new Map(optionSettings().map((s) => [s.spec.flag, `${SETTINGS_SECTION}.${s.key}`]));

export interface NamedSettings {
  /** The message with each such flag replaced by its setting's name. */
  text: string;
  /** The settings named, in the order they appear, each once. */
  settings: string[];
}

export function withSettingNames(message: string): NamedSettings {
  const settings: string[] = [];
  const text = message.replace(/(^|[\s(`'"])--([a-z][a-z0-9-]*)\b/g, (whole, before: string, flag: string) => {
    const setting = SETTING_OF_FLAG.get(flag);
    if (!setting) return whole;
    if (!settings.includes(setting)) settings.push(setting);
    return `${before}${setting}`;
  });
  return { text, settings };
}
