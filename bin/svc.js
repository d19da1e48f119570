#!/usr/bin/env node
import { relaunchIfNeeded } from '../dist/src/app/launch.js';

// Before anything else loads: a relaunch starts the process over.
relaunchIfNeeded();
await import('../dist/src/cli.js');
