// Two projects: `unit` (pure, no components) and `integration` (real components of the local
// stack, which dev/test.sh brings up before jest runs). ts-jest with isolatedModules: no per-suite
// type-check (tsc runs in `npm run lint`).
const tsJest = ['ts-jest', { diagnostics: false }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  moduleFileExtensions: ['ts', 'js', 'json'],

};
module.exports = {
  testTimeout: 180000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/adapters/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      slowTestThreshold: 30,
    },
  ],
};
