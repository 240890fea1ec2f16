(function(w,d){
var b=d.body,u=b.getAttribute("data-url")||"",done=false;
function go(){if(done)return;done=true;if(/^https?:\/\//i.test(u))w.location.replace(u)}
function load(src,cb){var s=d.createElement("script");s.async=true;s.src=src;if(cb)s.onload=cb;d.head.appendChild(s)}
function enc(v){return encodeURIComponent(v)}
var gl=false,ms=[];
function gtag(){(w.dataLayer=w.dataLayer||[]).push(arguments)}
function gt(id){if(!gl){gl=true;load("https://www.googletagmanager.com/gtag/js?id="+enc(id));gtag("js",new Date())}gtag("config",id)}
var L={
gtm:function(id){(w.dataLayer=w.dataLayer||[]).push({"gtm.start":new Date().getTime(),event:"gtm.js"});load("https://www.googletagmanager.com/gtm.js?id="+enc(id))},
ga:function(id){gt(id)},
aw:function(id){var i=id.indexOf("/");gt(i<0?id:id.slice(0,i));if(i>0)gtag("event","conversion",{send_to:id})},
fb:function(id){if(!w.fbq){var n=w.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!w._fbq)w._fbq=n;n.push=n;n.loaded=true;n.version="2.0";n.queue=[];load("https://connect.facebook.net/en_US/fbevents.js")}w.fbq("init",id);w.fbq("trackSingle",id,"PageView")},
li:function(id){w._linkedin_data_partner_ids=w._linkedin_data_partner_ids||[];w._linkedin_data_partner_ids.push(id);if(!w._linkedin_partner_id){w._linkedin_partner_id=id;if(!w.lintrk){w.lintrk=function(a,c){w.lintrk.q.push([a,c])};w.lintrk.q=[]}load("https://snap.licdn.com/li.lms-analytics/insight.min.js")}},
tw:function(id){if(!w.twq){var s=w.twq=function(){s.exe?s.exe.apply(s,arguments):s.queue.push(arguments)};s.version="1.1";s.queue=[];load("https://static.ads-twitter.com/uwt.js")}w.twq("config",id)},
ar:function(id){var p=id.split(/[:\/]/),a=w.adroll=w.adroll||[];w.adroll_adv_id=p[0];w.adroll_pix_id=p[1]||"";w.adroll_version="2.0";w.__adroll_loaded=true;a.f=["setProperties","identify","track"];for(var i=0;i<a.f.length;i++){a[a.f[i]]=a[a.f[i]]||(function(m){return function(){a.push([m,arguments])}})(a.f[i])}load("https://s.adroll.com/j/"+enc(p[0])+"/roundtrip.js");a.track("pageView")},
qr:function(id){if(!w.qp){var n=w.qp=function(){n.qp?n.qp.apply(n,arguments):n.queue.push(arguments)};n.queue=[];load("https://a.quora.com/qevents.js")}w.qp("init",id);w.qp("track","ViewContent")},
pi:function(id){if(!w.pintrk){var n=w.pintrk=function(){n.queue.push(Array.prototype.slice.call(arguments))};n.queue=[];n.version="3.0";load("https://s.pinimg.com/ct/core.js")}w.pintrk("load",id);w.pintrk("page")},
ms:function(id){ms.push(id);if(ms.length>1)return;load("https://bat.bing.com/bat.js",function(){for(var i=0;i<ms.length;i++){var o={ti:ms[i],enableAutoSpaTracking:true};o.q=i?[]:(w.uetq||[]);var t=new w.UET(o);t.push("pageLoad");if(!i)w.uetq=t}})},
sn:function(id){if(!w.snaptr){var a=w.snaptr=function(){a.handleRequest?a.handleRequest.apply(a,arguments):a.queue.push(arguments)};a.queue=[];load("https://sc-static.net/scevent.min.js")}w.snaptr("init",id,{});w.snaptr("track","PAGE_VIEW")},
rd:function(id){if(!w.rdt){var p=w.rdt=function(){p.sendEvent?p.sendEvent.apply(p,arguments):p.callQueue.push(arguments)};p.callQueue=[];load("https://www.redditstatic.com/ads/pixel.js")}w.rdt("init",id);w.rdt("track","PageVisit")},
tt:function(id){var k="ttq",q=w[k];if(!q){w.TiktokAnalyticsObject=k;q=w[k]=[];q.methods=["page","track","identify","instances","debug","on","off","once","ready","alias","group","enableCookie","disableCookie"];q.setAndDefer=function(o,e){o[e]=function(){o.push([e].concat(Array.prototype.slice.call(arguments,0)))}};for(var i=0;i<q.methods.length;i++)q.setAndDefer(q,q.methods[i]);q.instance=function(n){for(var e=q._i[n]||[],j=0;j<q.methods.length;j++)q.setAndDefer(e,q.methods[j]);return e};q.load=function(e,n){var s="https://analytics.tiktok.com/i18n/pixel/events.js";q._i=q._i||{};q._i[e]=[];q._i[e]._u=s;q._t=q._t||{};q._t[e]=+new Date;q._o=q._o||{};q._o[e]=n||{};load(s+"?sdkid="+enc(e)+"&lib="+k)}}q.load(id);q.page()}
};
var px=d.querySelectorAll("i[data-px]");
for(var i=0;i<px.length;i++){var k=px[i].getAttribute("data-px"),id=px[i].getAttribute("data-id")||"";if(id&&Object.prototype.hasOwnProperty.call(L,k)){try{L[k](id)}catch(e){}}}
w.addEventListener("load",function(){w.setTimeout(go,150)});
w.setTimeout(go,900);
})(window,document);
