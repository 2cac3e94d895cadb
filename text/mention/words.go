package mention

// commonWords are English words that, capitalised in the middle of a
// sentence, are still no name: a label ("the Review button"), a title word,
// emphasis, or a word of the trade ("the Session resource"). A single
// capitalised word in this list is no entity; a name of several words may
// hold them ("New York Times", "World Health Organization"). Words of the
// other tables (stop words, verbs) count as common too.
const commonWords = `
ability able absence absolute abstract academic accept access account accuracy accurate
achieve act action active activity actor actual adapter addition address adjust admin
administration adult advance advanced advantage advice affair affect after afternoon age
agency agent agenda agreement aid aim air alarm alert algorithm alias alignment alive
allocation alpha alternative amount analysis analytics analyst analyzer anchor angle animal
annotation annotations announcement annual answer anything app appeal appearance append
application approach approval area argument arm army arrangement array arrival art article
artifact artifacts artist aspect assembly assertion asset assets assignment assistant
association assumption attack attempt attention attribute audience audio audit author
authority authorization authentication auto automation autumn available average award
awareness back background backend backup bad badge balance ball ban band bank banner bar
base baseline basic basis batch battle beach bean bear beat beautiful bed beginning
behavior behaviour being belief bell belt benchmark benefit best beta better big bill
binary bind binding biology bird birth bit black blank block blocker blog blood blue board
boat body bold bond bonus book boolean boot border boss bottom bound boundary box brain
branch brand bread break breakdown breaking bridge brief bright broad broken brother
browser brown budget buffer bug build builder building bulk bullet bundle burden business
busy button buyer cache calendar call callback camera camp campaign cancel candidate cap
capability capacity capital captain car card care career carrier case cash cast catalog
catalogue category cause cell center central centre century certain chain chair challenge
champion chance change changes channel chapter character charge chart chat cheap check
checker checklist chief child children choice chunk church circle citizen city civil
claim class classic clean cleanup clear client climate clock close closed cloud club
cluster coach coal coast code codebase codegen coffee cold collection college colour
color column combination comfort command comment comments commercial commission commit
committee common communication community company comparison compatibility competition
compiler complete completion complex component components composition compute computer
concept concern conclusion concurrency condition conference confidence config
configuration conflict connection connector consensus consent consequence console
constant constraint construction consumer contact container content context contract
contrast contribution control controller convention conversation conversion cookie copy
core corner corporate correct cost council count counter country county couple course
court cover coverage crash create creation credit crime crisis critical cross crowd
crucial cry culture cup currency current cursor curve custom customer cut cycle daily
damage danger dark dashboard data database date daughter day dead deadline deal dealer
death debate debug debt decade decision declaration decline decoder deep default defence
defense deficit definition degree delay delivery demand demo democracy department
dependency deploy deployment depth deputy description design designer desk detail
details detection detector developer development device diagram dialog dialogue diet
difference digital dimension dinner direct direction director directory disable discount
discovery discussion disease dispatch display distance distribution district diversity
division doc docs doctor document documentation dog dollar domain door double doubt down
draft drama draw drawer dream dress drink drive driver drop dropdown duration duty
dynamic early earth east easy economy edge edit edition editor education effect effective
efficiency effort election electric element else email emergency emphasis employee
empty enable encoder end endpoint enemy energy engine engineer engineering enhancement
enterprise entity entry environment epic equal equipment error escape essay estate
estimate evaluation evening event evidence exact exam example exception exchange
executive executor exercise exhibition existing exit expand expansion expectation
experience experiment expert explanation export exposure expression extension extent
external extra eye face facility fact factor factory failure fair faith fall false
family fan fast father fault favourite favorite feature features fee feedback feeling
female fetch field fight figure file files filter final finance finding fine finish fire
firm fish fit fix fixed fixture flag flash flat flight floor flow focus folder follow
font food foot football force foreign forest form format formatter formula fortune
forum forward foundation frame framework free freedom frequency fresh friend front
frontend fruit fuel full function functions fund future gain game gap garden gas gate
gateway general generator generic gift girl glass global goal gold good government
grade graph great green grid gross ground group growth guard guest guide guideline
half hall hand handle handler handling hard hardware head header heading health heart
heat heavy height help helper hero hidden high highlight highlights hint history hit
hold hole holiday home hook hope horse hospital host hot hotel hour house housing human
icon idea identity image impact implementation import importance improvement incident
income increase independent index indicator individual industry info information
infrastructure initial initiative injury inner input insight inspector instance
instruction insurance integration intelligence intent interaction interest interface
internal international internet interview introduction inventory investigation
investment invoice issue issues item items job join joint journal journey judge jump
junior justice keep kernel key keyboard kid kind king kitchen knowledge label labour
labor lack lady land landing language large last late latency launch law lawyer layer
layout lead leader leadership league learning leave left legacy legal length lesson
letter level library licence license life light limit line link links list listener
literature live load loader loan local location lock log logger logging logic login
long loop loss love low lunch machine magazine main maintenance major male man manager
manifest map mapper margin mark market marketing mass master match material matrix
matter maximum meal meaning measure media medium meeting member memory mention menu
merge message metadata meter method methods metric metrics middle middleware midnight
migration military mind minimum minister minor minute mirror mission mistake mix
mobile mock modal mode model modern module moment money monitor monitoring month mood
morning mother motion mount mouse move movement movie multiple music mutation name
names narrative nation national native natural nature navigation need negative network
new news next night node noise normal north note notes notice notification novel null
number object observation observer occasion offer office officer official offset oil
old online open operation operator opinion opportunity option options order
organisation organization origin original other outcome outline output overview owner
pack package page pager pain paint pair panel paper parameter parameters parent park
parser part partner party pass passage passenger password past patch path patient
pattern pause pay payload payment peace peak pending people percent performance period
permission person personal phase phone photo phrase physical picker piece pilot pin
pipe pipeline pitch place plan plane planet planner plant platform play player plugin
point pointer police policy poll pool poor popular population port portal position
positive post potential pound power practice prefix premium preparation presence
present president press pressure preview previous price pride primary prime principle
print printer priority private prize probe problem procedure process processor produce
producer product production profile profit program programme progress project
promise promotion prompt proof property proposal protection protocol provider proxy
public publisher pull purchase purpose push quality quantity quarter query question
queue quick quiet quote race radio random range rank rate ratio raw reach reaction
reader reading ready real reality reason recent recipe record recovery red reduction
ref reference refresh region register registry regular regulation relation release
remote removal render renderer repair replacement reply repo report reporter
repository request requirement research reserve reset resolution resolver resource
resources response responsibility rest restore result results retry return revenue
review reviewer revision reward rich ride right ring rise risk river road role roll
rollback room root rotation round route router routine row rule rules run runner
runtime safe safety sale salt sample sandbox save saving scale scan scanner scenario
scene schedule scheduler schema scheme school science scope score screen script
scroll search season seat second secret section sector security seed segment
selection selector self sell semantic senior sense sensor sentence separate sequence
series serializer server service session set setting settings setup shape share
sheet shell shift shop short shot show side sidebar sign signal signature silver
simple single site size skill slice slot slow small smart snapshot social socket
soft software solution song sort sound source south space span speaker special
specification speech speed spending spirit split sport spot spring stack staff stage
standard star start state statement station status step stock stop storage store
story strategy stream street strength stress strict string strong structure student
studio study stuff style subject submit subscriber subscription success suite summary
summer supply support surface survey switch symbol sync syntax system table tag tail
talk target task tax teacher team technology template temperature term terminal test
testing tests text theme theory thing things thread threshold ticket tier time timer
timeout tip title today token tool toolbar tools top topic total touch tour town
trace track trade traffic trail training transaction transfer transform transformer
transition translation transport travel tree trend trial trigger trip trouble truck
trust truth turn tutorial type types union unit universe university update upgrade
upload upper usage use user users utility validation validator value variable variant
vector vendor version video view viewer village virtual vision visit visitor voice
volume vote wait walk wall war warning watch watcher water wave way weapon weather web
website week weekend weight welcome west wheel white whole widget width wife wind window
winner winter wire wise woman word words work worker workflow world worker wrapper
writer writing wrong yard year yellow young youth zone
able available basic better big certain clean clear close complete correct current
dead deep different difficult early easy empty entire exact extra fair false final
fine free full general good great hard heavy high hot huge important internal key
large late light little local long low main major minor modern new nice normal old
open other own particular past possible present pretty previous private proper public
quick ready real recent red related relevant remaining right safe same several short
significant similar simple single slow small special specific stable standard strong
sure true unique unknown useful usual valid various whole wide wrong
abort accept activate append apply approve archive assert assign attach block bootstrap
broadcast browse cancel capture catch change chunk clone close collapse collect combine
compare compile compose compress compute connect consume contain convert copy count
crawl cut debug decode decrypt define deploy describe deserialize destroy detect disable
dismiss dispatch display download drag duplicate edit emit enable encode encrypt enter
evaluate execute exit expand expect explain explore export extend fetch fill filter
flatten flush fold follow force fork format generate grant group guard hide highlight
hydrate ignore import index inject insert inspect install invoke join jump kill launch
link list listen load lock log login logout lookup map mark match measure mount mutate
navigate normalize notify observe open optimize order override paginate parse paste
pause persist pick ping poll populate post predict prefetch preload prepare preview
print process profile promote prompt protect provide publish pull purge push query
queue quit raise react reload render repeat reply request require reset resize resolve
respond restart restore resume retry revert review rollback rotate route sample save
scale scan schedule scroll search seed select send serialize serve share shuffle sign
simulate skip sleep slice sort spawn start stash stop store stream submit subscribe
suggest swap switch sync tag throttle toggle track train transform translate trigger
trim truncate unlock unmount unsubscribe unwrap upload validate verify view visit
wait watch wrap yield zoom
approach area bug changes docs enhancement feature fix improvement notes overview
plan refactor refactoring results root cause steps summary tasks testing todo
verification why workflow
also anyway currently finally first however meanwhile next now recently then today
physics chemistry medicine economics mathematics maths math biology geography philosophy
psychology sociology engineering astronomy geology literature peace arts science sciences
earth sun moon north south east west northern southern eastern western central
italic bold underline strikethrough heading subheading caption footnote appendix
`
