// Loads a profile.coz with the Profile class of Coz's own viewer (the
// installed coz-profiler's js/profile.js, run as it is, without a page)
// and prints, as JSON, {selected: [[speedup, progress_speedup]...]}: the
// curves that viewer would plot. Usage: node coz_viewer_check.js PROFILE_JS PROFILE
'use strict';
const fs = require('fs');
const vm = require('vm');
const [profileJs, profile] = process.argv.slice(2);
const context = {console, d3: {select: () => ({})}, window: {}, Math, JSON, isNaN, Infinity};
vm.createContext(context);
vm.runInContext(fs.readFileSync(profileJs, 'utf8') + ';this.Profile = Profile;', context);
const warnings = [];
const p = new context.Profile(fs.readFileSync(profile, 'utf8'), {}, {}, () => 1,
                              (title, text) => warnings.push(title + ': ' + text));
const out = {};
for (const d of p.getSpeedupData(1))
  out[d.name] = d.progress_points[0].measurements.map(m => [m.speedup, m.progress_speedup]);
console.log(JSON.stringify({warnings, curves: out}));
