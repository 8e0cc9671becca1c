import type { Browser } from 'playwright-core';

export declare const CHROMIUM: string;
export declare function launchChromium(dir: string, executablePath?: string): Promise<Browser>;
export declare function chromiumEnv(dir: string): NodeJS.ProcessEnv;
