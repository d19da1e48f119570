/** Zones every engine property test draws from: DST both ways, :30 and :45 offsets, 30-minute DST. */
export const TEST_ZONES = [
  'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham',
  'America/Santiago', 'Europe/Berlin', 'Australia/Sydney', 'America/St_Johns', 'UTC', 'Pacific/Apia', 'America/Chihuahua',
];
