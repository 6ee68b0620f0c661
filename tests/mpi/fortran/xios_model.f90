! A model written the way an XIOS user writes it (`use xios`), following the
! IFS integration of the thesis (snippets 4.2-4.9, 4.14): xios_initialize
! starts MPI and returns the model communicator; the calendar comes from the
! model date (NINDAT, NSSSSS) and TSTEP; levels are an axis; the reduced
! Gaussian grid is decomposed by an index list with lon/lat and 4-corner
! bounds; each step gathers NPROMA blocks and sends the fields that
! xios_field_is_active says are needed now. After xios_finalize, rank 0
! reads the files back (nc_read.f90) and compares every value with the
! formulas, computed again from the global index. A second file holds an
! axis decomposed by begin/n with bounds, one decomposed by index, a scalar
! coordinate set by xios_set_scalar_attr, and fields of a scalar alone sent
! as real(8) and real(4) scalars (rank-0 xios_send_field).
!
! usage: xios_model [unsupported|unsupported_scalar]   (reads iodef.xml, or $FOEHN_IODEF)
!   unsupported: set a domain attribute foehn does not support (must stop)
!   unsupported_scalar: the same with a scalar attribute
program xios_model
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi
  use xios
  use nc_read
  implicit none

  integer, parameter :: jprb = real64, nlat = 4, nflevg = 3, nsteps = 8
  integer, parameter :: nloeng(nlat) = [8, 12, 12, 8], ngptotg = sum(nloeng)
  integer, parameter :: nindat = 20000228, nsssss = 22 * 3600, tstep = 900  ! 2000-02-28 22:00, 15 minutes
  real(jprb), parameter :: rlat(nlat) = [60.0_jprb, 20.0_jprb, -20.0_jprb, -60.0_jprb]

  integer :: comm, ierr, myproc, nproc, nproma, ngptot, ngpblks, nstep, jstglo, icend, ibl, jlev, i, j, failures
  integer, allocatable :: i_index(:), nglobalproc(:), ngplat(:)
  real(jprb), allocatable :: lonvalue_1d(:), latvalue_1d(:), bounds_lon_1d(:,:), bounds_lat_1d(:,:)
  real(jprb), allocatable :: gmv(:,:,:,:), gmvs(:,:), xios_gmv(:,:), xios_gmvs(:)
  real(real32), allocatable :: xios_gfl(:,:)
  type(xios_context) :: context_handle
  type(xios_duration) :: time_step
  type(xios_date) :: start, now
  character(len=32) :: mode, expid
  real(jprb) :: scale
  logical :: write_q, flag
  integer, parameter :: mt = 1, mq = 2  ! the fields in GMV
  ! A lon/lat surface grid in row bands; its arrays carry a halo of 1 all round.
  integer, parameter :: nlon = 6, nlat_ll = 4
  integer :: jbegin_ll, nj_ll
  real(real32), allocatable :: tsurf(:,:)
  ! Decomposed axes (file xios_extra): bands by begin/n, bins by index.
  integer, parameter :: nband = 5, nbin = 7
  integer :: band0, nbands, k
  integer, allocatable :: bins(:)

  call get_command_argument(1, mode)
  failures = 0

  ! 4.2: XIOS initializes MPI and gives the model its communicator.
  call xios_initialize("ifs", return_comm=comm)
  call MPI_Comm_rank(comm, myproc, ierr)
  call MPI_Comm_size(comm, nproc, ierr)

  ! 4.4: the context.
  call xios_context_initialize("ifs", comm)
  call xios_get_handle("ifs", context_handle)
  call xios_set_current_context(context_handle)
  call ifs_xios_set_calendar()
  call ifs_xios_set_axis()
  call ifs_xios_set_domain()
  call set_surface_domain()
  call set_axes_and_scalars()
  if (trim(mode) == "unsupported") call xios_set_domain_attr("grid_gg", area=reshape([1.0_jprb], [1, 1]))
  if (trim(mode) == "unsupported_scalar") call xios_set_scalar_attr("height2m", long_name="screen height")
  if (trim(mode) == "undefined_attribute") call xios_get_field_attr("t", default_value=scale)
  call ifs_xios_run_time_settings()
  call xios_set_current_context("ifs")  ! by id too
  call xios_close_context_definition()

  ! NPROMA blocking of the model's own arrays (snippet 3.2), from an XML variable.
  ngpblks = (ngptot + nproma - 1) / nproma
  allocate(gmv(nproma, nflevg, 2, ngpblks), gmvs(nproma, ngpblks))
  allocate(xios_gmv(ngptot, nflevg), xios_gmvs(ngptot), xios_gfl(ngptot, nflevg))

  call expect(.not. xios_field_is_active("unused"), "a field in no file is not active")
  call expect(xios_field_is_active("t"), "t is used by a file")
  do nstep = 1, nsteps
    call model_step(nstep)
    ! 4.14: tell the step, gather NPROMA blocks and send what is needed now.
    call xios_update_calendar(nstep)
    call expect(xios_field_is_active("t", .true.) .eqv. mod(nstep, 2) == 0, "t active every 2 steps")
    if (xios_field_is_active("t", .true.)) then
      do jstglo = 1, ngptot, nproma
        icend = min(nproma, ngptot - jstglo + 1)
        ibl = (jstglo - 1) / nproma + 1
        do jlev = 1, nflevg
          i = jstglo
          do j = 1, icend
            xios_gmv(i, jlev) = gmv(j, jlev, mt, ibl)
            i = i + 1
          end do
        end do
      end do
      if (nstep == 4) then  ! the same data as a rank-3 array
        call xios_send_field("t", reshape(xios_gmv, [ngptot, 1, nflevg]))
      else
        call xios_send_field("t", xios_gmv)
      end if
    end if
    if (xios_field_is_active("sp", .true.)) then
      do jstglo = 1, ngptot, nproma
        icend = min(nproma, ngptot - jstglo + 1)
        ibl = (jstglo - 1) / nproma + 1
        xios_gmvs(jstglo:jstglo + icend - 1) = gmvs(1:icend, ibl)
      end do
      call xios_send_field("sp", xios_gmvs)
    end if
    if (write_q .and. xios_field_is_active("q", .true.)) then
      do jstglo = 1, ngptot, nproma
        icend = min(nproma, ngptot - jstglo + 1)
        ibl = (jstglo - 1) / nproma + 1
        xios_gfl(jstglo:jstglo + icend - 1, :) = real(gmv(1:icend, :, mq, ibl), real32)
      end do
      call xios_send_field("q", xios_gfl)
    end if
    if (xios_field_is_active("tsurf", .true.)) then
      call surface_step(nstep)
      call xios_send_field("tsurf", tsurf)
    end if
    ! Parts of decomposed axes, the screen field and scalars, sent every step.
    call xios_send_field("flux", [(flux_value(band0 + k, nstep), k = 0, nbands - 1)])
    call xios_send_field("hist", [(real(hist_value(bins(k), nstep), real32), k = 1, size(bins))])
    call xios_send_field("t2m", [(t2m_value(i_index(k) + 1, nstep), k = 1, ngptot)])
    call xios_send_field("gmean", gmean_value(nstep) + myproc)  ! model rank 0's value is kept
    call xios_send_field("gmean4", real(gmean_value(nstep) + myproc, real32))
    call xios_get_current_date(now)
    call expect(now == start + nstep * time_step, "current date = start + step * timestep")
  end do
  ! 2000 is a leap year and the model's calendar is Gregorian (the XML said noleap).
  call expect(now == xios_date(2000, 2, 29, 0, 0, 0), "8 steps of 15 minutes after 2000-02-28 22:00: " // &
              xios_date_to_string(now))

  ! 4.3
  deallocate(xios_gmv, xios_gmvs, xios_gfl)
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call xios_context_finalize()
  call xios_finalize()  ! also MPI_Finalize: xios_initialize started MPI
  if (myproc /= 0) stop
  call check_files()
  if (failures == 0) then
    print '(a)', "xios_model: OK"
  else
    print '(a,i0,a)', "xios_model: FAILED (", failures, " failed checks)"
    error stop 1
  end if

contains

  ! 4.5: the calendar from the model's date and time step.
  subroutine ifs_xios_set_calendar()
    integer :: year, month, day, hours, minutes, seconds
    year = nindat / 10000
    month = mod(nindat / 100, 100)
    day = mod(nindat, 100)
    hours = nsssss / 3600
    minutes = (nsssss - hours * 3600) / 60
    seconds = nsssss - hours * 3600 - minutes * 60
    call xios_define_calendar(type="Gregorian")
    call xios_set_time_origin(time_origin=xios_date(year, month, day, hours, minutes, seconds))
    call xios_set_start_date(start_date=xios_date(year, month, day, hours, minutes, seconds))
    time_step%second = tstep
    call xios_set_timestep(time_step)
    start = xios_date(year, month, day, hours, minutes, seconds)
    call xios_get_start_date(now)
    call expect(now == start .and. .not. (now /= start) .and. now <= start .and. now >= start, "start date")
    call expect(start + xios_day < start + 2 * xios_day .and. start + xios_hour > start .and. &
                start - xios_hour < start, "date order")
    call expect(start + xios_day == xios_date(2000, 2, 29, 22, 0, 0), "2000-02-28 + 1 day (Gregorian)")
    call expect(xios_date_to_string(start + 2 * xios_month - 0.5_jprb * xios_day) == "2000-04-28 10:00:00", &
                "2 months minus half a day: " // xios_date_to_string(start + 2 * xios_month - 0.5_jprb * xios_day))
    call expect(xios_duration_to_string(xios_hour + 30 * xios_minute - xios_second) == "5399s" .and. &
                4 * xios_timestep == xios_duration(timestep=4) .and. -xios_day /= xios_day, "durations")
  end subroutine ifs_xios_set_calendar

  ! 4.6: model levels.
  subroutine ifs_xios_set_axis()
    real(jprb), allocatable :: zml(:)
    real(jprb) :: j
    integer :: i
    allocate(zml(nflevg))
    j = 1.0
    do i = 1, nflevg
      zml(i) = j
      j = j + 1.0
    end do
    call xios_is_defined_axis_attr("lev", positive=flag)
    call expect(.not. flag, "lev positive not defined before it is set")
    call xios_set_axis_attr("lev", n_glo=nflevg, value=zml, unit="-", positive="up")
    call xios_is_defined_axis_attr("lev", positive=flag)
    call expect(flag, "lev positive defined once set")
    deallocate(zml)
  end subroutine ifs_xios_set_axis

  ! 4.7-4.9: the local points by index list, their coordinates and bounds.
  subroutine ifs_xios_set_domain()
    real(jprb) :: zrgauslat(0:nlat + 1), zdeltax, zdeltayup, zdeltaydw
    integer :: i, j
    ! Which process holds each point: blocks of 3 points dealt round the ranks.
    allocate(nglobalproc(ngptotg), ngplat(ngptotg))
    nglobalproc = [(mod((i - 1) / 3, nproc), i = 1, ngptotg)]
    ngplat = [((j, i = 1, nloeng(j)), j = 1, nlat)]
    ngptot = count(nglobalproc == myproc)
    allocate(i_index(ngptot), lonvalue_1d(ngptot), latvalue_1d(ngptot), bounds_lon_1d(4, ngptot), &
             bounds_lat_1d(4, ngptot))
    j = 0
    do i = 1, ngptotg
      if (nglobalproc(i) == myproc) then
        j = j + 1
        i_index(j) = i - 1  ! XIOS requires indexing from 0
      end if
    end do
    zrgauslat(0) = 90.0_jprb
    zrgauslat(nlat + 1) = -90.0_jprb
    zrgauslat(1:nlat) = rlat
    do i = 1, ngptot
      latvalue_1d(i) = rlat(ngplat(i_index(i) + 1))
      lonvalue_1d(i) = point_longitude(i_index(i) + 1)
      zdeltax = 0.5_jprb * 360.0_jprb / real(nloeng(ngplat(i_index(i) + 1)), jprb)
      zdeltayup = 0.5_jprb * (zrgauslat(ngplat(i_index(i) + 1) - 1) - zrgauslat(ngplat(i_index(i) + 1)))
      zdeltaydw = 0.5_jprb * (zrgauslat(ngplat(i_index(i) + 1) + 1) - zrgauslat(ngplat(i_index(i) + 1)))
      if (zrgauslat(ngplat(i_index(i) + 1) - 1) == 90.0_jprb) zdeltayup = 2.0_jprb * zdeltayup
      if (zrgauslat(ngplat(i_index(i) + 1) + 1) == -90.0_jprb) zdeltaydw = 2.0_jprb * zdeltaydw
      bounds_lon_1d(:, i) = lonvalue_1d(i) + [zdeltax, zdeltax, -zdeltax, -zdeltax]
      bounds_lat_1d(:, i) = latvalue_1d(i) + [zdeltaydw, zdeltayup, zdeltayup, zdeltaydw]
    end do
    call xios_set_domain_attr("grid_gg", type="gaussian", ni_glo=ngptotg, ni=ngptot, ibegin=0, i_index=i_index)
    call xios_set_domain_attr("grid_gg", lonvalue_1d=lonvalue_1d, latvalue_1d=latvalue_1d, nvertex=4, &
                              bounds_lon_1d=bounds_lon_1d, bounds_lat_1d=bounds_lat_1d)
    call xios_set_domain_attr("grid_gg", data_dim=1, data_ibegin=0, data_ni=ngptot)
    call xios_is_defined_domain_attr("grid_gg", ni_glo=flag)
    call expect(flag, "grid_gg ni_glo defined once set")
  end subroutine ifs_xios_set_domain

  ! The surface grid: rows jbegin_ll+1 .. jbegin_ll+nj_ll, with halo and a land mask (mod(i + j, 5) == 0).
  subroutine set_surface_domain()
    real(jprb) :: lon(nlon), lat(nlat_ll), blon(2, nlon), blat(2, nlat_ll)
    logical, allocatable :: ocean(:,:)
    integer :: i, j
    jbegin_ll = myproc * nlat_ll / nproc
    nj_ll = (myproc + 1) * nlat_ll / nproc - jbegin_ll
    lon = [(30.0_jprb + 60.0_jprb * (i - 1), i = 1, nlon)]
    lat = [(-67.5_jprb + 45.0_jprb * (j - 1), j = 1, nlat_ll)]
    blon(1, :) = lon - 30.0_jprb
    blon(2, :) = lon + 30.0_jprb
    blat(1, :) = lat - 22.5_jprb
    blat(2, :) = lat + 22.5_jprb
    allocate(ocean(nlon, nj_ll), tsurf(0:nlon + 1, 0:nj_ll + 1))
    ocean = reshape([((mod(i + jbegin_ll + j, 5) /= 0, i = 1, nlon), j = 1, nj_ll)], [nlon, nj_ll])
    call xios_set_domain_attr("grid_ll", ni_glo=nlon, nj_glo=nlat_ll, ibegin=0, ni=nlon, jbegin=jbegin_ll, &
                              nj=nj_ll, data_dim=2, data_ibegin=-1, data_ni=nlon + 2, data_jbegin=-1, &
                              data_nj=nj_ll + 2, mask_2d=ocean)
    call xios_set_domain_attr("grid_ll", lonvalue_1d=lon, latvalue_1d=lat(jbegin_ll + 1:jbegin_ll + nj_ll), &
                              bounds_lon_1d=blon, bounds_lat_1d=blat(:, jbegin_ll + 1:jbegin_ll + nj_ll))
  end subroutine set_surface_domain

  ! Bands in uneven ranges with values and bounds from the model; bins by
  ! index in reversed interleaved order, values from the XML; the screen
  ! height's value and unit (the XML says 10 cm).
  subroutine set_axes_and_scalars()
    real(jprb), allocatable :: bands(:), band_bounds(:,:)
    integer :: b
    logical :: defined(3)
    band0 = myproc * nband / nproc
    nbands = (myproc + 1) * nband / nproc - band0
    bands = [(real(b + 1, jprb), b = band0, band0 + nbands - 1)]
    allocate(band_bounds(2, nbands))
    band_bounds(1, :) = bands - 0.5_jprb
    band_bounds(2, :) = bands + 0.5_jprb
    call xios_set_axis_attr("band", n_glo=nband, begin=band0, n=nbands, value=bands, unit="1")
    call xios_set_axis_attr("band", bounds=band_bounds)
    bins = [(b, b = nbin - 1, 0, -1)]
    bins = pack(bins, mod(bins, nproc) == myproc)
    call xios_set_axis_attr("bin", n_glo=nbin, index=bins)
    call xios_set_scalar_attr("height2m", value=2.0_jprb, unit="m")
    call xios_is_defined_axis_attr("band", begin=defined(1), bounds=defined(2), index=defined(3))
    call expect(all(defined .eqv. [.true., .true., .false.]), "is_defined band begin, bounds, index")
    call xios_is_defined_axis_attr("bin", begin=defined(1), bounds=defined(2), index=defined(3))
    call expect(all(defined .eqv. [.false., .false., .true.]), "is_defined bin begin, bounds, index")
  end subroutine set_axes_and_scalars

  real(jprb) function flux_value(band, step)
    integer, intent(in) :: band, step
    flux_value = 100.0_jprb * step + band
  end function flux_value
  real(jprb) function hist_value(bin, step)
    integer, intent(in) :: bin, step
    hist_value = 1000.0_jprb * step + bin
  end function hist_value
  real(jprb) function t2m_value(g, step)
    integer, intent(in) :: g, step
    t2m_value = 280.0_jprb + 0.5_jprb * g + step
  end function t2m_value
  real(jprb) function gmean_value(step)
    integer, intent(in) :: step
    gmean_value = 1000.0_jprb * step + 0.5_jprb
  end function gmean_value

  subroutine surface_step(step)
    integer, intent(in) :: step
    integer :: i, j
    tsurf = -999.0_real32  ! the halo, which must never reach the file
    do j = 1, nj_ll
      do i = 1, nlon
        tsurf(i, j) = real(tsurf_value(i, jbegin_ll + j, step), real32)
      end do
    end do
  end subroutine surface_step

  real(jprb) function tsurf_value(i, j, step)
    integer, intent(in) :: i, j, step
    tsurf_value = 280.0_jprb + 0.5_jprb * i - 0.25_jprb * j + step
  end function tsurf_value

  ! Variables, attribute queries and changes before close of definition.
  subroutine ifs_xios_run_time_settings()
    logical :: defined(3)
    real(real32) :: scale4
    call expect(xios_getvar("nproma", nproma) .and. nproma == 5, "getvar nproma")
    call expect(xios_getvar("output_scale", scale) .and. scale == 0.5_jprb, "getvar output_scale")
    call expect(xios_getvar("output_scale", scale4) .and. scale4 == 0.5_real32, "getvar output_scale as real(4)")
    call expect(xios_getvar("write_q", write_q) .and. write_q, "getvar write_q")
    call expect(xios_getvar("expid", expid) .and. expid == "hxio", "getvar expid")
    call expect(.not. xios_getvar("no_such_variable", scale), "getvar of a missing variable")
    call xios_is_defined_field_attr("t", unit=defined(1), standard_name=defined(2))
    call xios_is_defined_field_attr("sp", standard_name=defined(3))
    call expect(all(defined .eqv. [.true., .true., .false.]), "is_defined field attributes")
    call xios_is_defined_file_attr("avg", output_freq=defined(1), split_freq=defined(2))
    call expect(defined(1) .and. .not. defined(2), "is_defined file attributes")
    call xios_set_field_attr("sp", long_name="surface air pressure")
    call xios_set_file_attr("avg", output_freq=4 * xios_timestep)
    call xios_set_file_attr("gmv", sync_freq=2 * xios_timestep)
    call xios_set_file_attr("sfc", output_level=10)
    call xios_solve_inheritance()
    call ifs_xios_get_attributes()
  end subroutine ifs_xios_run_time_settings

  ! xios_get_*_attr: the XML's values after groups and references, the
  ! changes made above, and what the model set on its domains and axes.
  subroutine ifs_xios_get_attributes()
    character(len=64) :: text(3)
    integer :: n(2)
    type(xios_duration) :: freq
    call xios_get_field_attr("t", unit=text(1), standard_name=text(2), operation=text(3), prec=n(1))
    call expect(text(1) == "K" .and. text(2) == "air_temperature" .and. text(3) == "instant" .and. n(1) == 8, &
                "get_field_attr t (operation from the group)")
    call xios_get_field_attr("sp", long_name=text(1), domain_ref=text(2))
    call expect(text(1) == "surface air pressure" .and. text(2) == "grid_gg", "get_field_attr sp after set")
    call xios_get_file_attr("gmv", name=text(1), type=text(2), output_freq=freq)
    call expect(text(1) == "xios_gmv" .and. text(2) == "one_file" .and. freq == 2 * xios_timestep, "get_file_attr gmv")
    call xios_get_file_attr("avg", output_freq=freq)
    call expect(freq == 4 * xios_timestep, "get_file_attr avg output_freq after set")
    call xios_get_file_attr("gmv", sync_freq=freq)
    call xios_get_file_attr("sfc", output_level=n(1))
    call expect(freq == 2 * xios_timestep .and. n(1) == 10, "get_file_attr sync_freq, output_level after set")
    call xios_get_domain_attr("grid_gg", type=text(1), ni_glo=n(1))
    call expect(text(1) == "gaussian" .and. n(1) == ngptotg, "get_domain_attr grid_gg (from the model)")
    call xios_get_domain_attr("grid_ll", ni_glo=n(1), nj_glo=n(2))
    call expect(n(1) == nlon .and. n(2) == nlat_ll, "get_domain_attr grid_ll")
    call xios_get_axis_attr("lev", n_glo=n(1), positive=text(1), long_name=text(2))
    call expect(n(1) == nflevg .and. text(1) == "up" .and. text(2) == "model level", "get_axis_attr lev")
    call xios_get_axis_attr("bin", unit=text(1), n_glo=n(1))
    call expect(text(1) == "K" .and. n(1) == nbin, "get_axis_attr bin")
  end subroutine ifs_xios_get_attributes

  real(jprb) function point_longitude(g)
    integer, intent(in) :: g
    integer :: row, first
    row = ngplat(g)
    first = sum(nloeng(1:row - 1)) + 1
    point_longitude = 360.0_jprb * (g - first) / nloeng(row)
  end function point_longitude

  ! The model's state at a step, in its NPROMA blocks.
  subroutine model_step(step)
    integer, intent(in) :: step
    integer :: jrof, jblk, g
    gmv = -999.0_jprb
    gmvs = -999.0_jprb
    do jblk = 1, ngpblks
      do jrof = 1, min(nproma, ngptot - (jblk - 1) * nproma)
        g = i_index((jblk - 1) * nproma + jrof) + 1
        do jlev = 1, nflevg
          gmv(jrof, jlev, mt, jblk) = t_value(g, jlev, step)
          gmv(jrof, jlev, mq, jblk) = q_value(g, jlev, step)
        end do
        gmvs(jrof, jblk) = sp_value(g, step)
      end do
    end do
  end subroutine model_step

  ! Exactly representable values (multiples of 1/16), so that averages and
  ! real32 are exact.
  real(jprb) function t_value(g, lev, step)
    integer, intent(in) :: g, lev, step
    t_value = 250.0_jprb + 10.0_jprb * lev + 0.5_jprb * g + 0.125_jprb * step
  end function t_value
  real(jprb) function q_value(g, lev, step)
    integer, intent(in) :: g, lev, step
    q_value = 0.25_jprb * lev + 0.0625_jprb * mod(g, 7) + 0.5_jprb * step
  end function q_value
  real(jprb) function sp_value(g, step)
    integer, intent(in) :: g, step
    sp_value = 100000.0_jprb + 2.0_jprb * g + 0.25_jprb * step
  end function sp_value

  ! Every value of both files against the formulas, recomputed here.
  subroutine check_files()
    real(jprb), allocatable :: v(:)
    integer :: r, g, lev, k, row, i, j
    real(jprb) :: lon, dx, up, dw, lat_edges(0:nlat + 1)
    call read_var("xios_gmv.nc", "time_counter", v)
    call expect(same(v, [(900.0_jprb * 2 * r, r = 1, 4)]), "xios_gmv time_counter: seconds since the origin")
    call read_var("xios_gmv.nc", "t", v)  ! (time, lev, cell): cell fastest
    call expect(same(v, [((((t_value(g, lev, 2 * r)), g = 1, ngptotg), lev = 1, nflevg), r = 1, 4)]), "t values")
    call read_var("xios_gmv.nc", "sp", v)
    call expect(same(v, [((sp_value(g, 2 * r), g = 1, ngptotg), r = 1, 4)]), "sp values")
    call read_var("xios_gmv.nc", "lev", v)
    call expect(same(v, [1.0_jprb, 2.0_jprb, 3.0_jprb]), "levels")
    call expect(read_text_attribute("xios_gmv.nc", "lev", "positive") == "up", "lev positive")
    call expect(read_text_attribute("xios_gmv.nc", "sp", "long_name") == "surface air pressure", &
                "sp long_name set at run time")
    call expect(read_text_attribute("xios_gmv.nc", "t", "long_name") == "temperature", "t long_name")
    call read_var("xios_avg.nc", "q", v)  ! means over steps 1-4 and 5-8
    call expect(same(v, [(((q_value(g, lev, 4 * r - 2) + 0.25_jprb, g = 1, ngptotg), lev = 1, nflevg), r = 1, 2)]), &
                "q averages every 4 steps (output_freq set at run time)")
    ! The surface grid: masked points hold the fill value, the halo is never written.
    call read_var("xios_sfc.nc", "tsurf", v)
    call expect(same(v, [(((merge(tsurf_value(i, j, 2 * r), real(real(9.9692099683868690e36_jprb, real32), jprb), &
                                  mod(i + j, 5) /= 0), i = 1, nlon), j = 1, nlat_ll), r = 1, 4)]), "tsurf values and mask")
    call read_var("xios_sfc.nc", "lat", v)
    call expect(same(v, [(-67.5_jprb + 45.0_jprb * (j - 1), j = 1, nlat_ll)]), "surface latitudes")
    call read_var("xios_sfc.nc", read_text_attribute("xios_sfc.nc", "lon", "bounds"), v)
    call expect(same(v, [((30.0_jprb + 60.0_jprb * (i - 1) + 30.0_jprb * k, k = -1, 1, 2), i = 1, nlon)]), &
                "surface longitude bounds")
    call check_extra_file()
    ! Coordinates and bounds of the reduced Gaussian grid.
    lat_edges(0) = 90.0_jprb
    lat_edges(nlat + 1) = -90.0_jprb
    lat_edges(1:nlat) = rlat
    call read_var("xios_gmv.nc", "lat", v)
    call expect(same(v, [((rlat(row), k = 1, nloeng(row)), row = 1, nlat)]), "latitudes")
    call read_var("xios_gmv.nc", "lon", v)
    call expect(same(v, [((360.0_jprb * k / nloeng(row), k = 0, nloeng(row) - 1), row = 1, nlat)]), "longitudes")
    call read_var("xios_gmv.nc", read_text_attribute("xios_gmv.nc", "lat", "bounds"), v)
    call expect(allocated(v), "latitude bounds")
    if (.not. allocated(v)) return
    g = 0
    do row = 1, nlat
      up = 0.5_jprb * (lat_edges(row - 1) - lat_edges(row))
      dw = 0.5_jprb * (lat_edges(row + 1) - lat_edges(row))
      if (row == 1) up = 2 * up
      if (row == nlat) dw = 2 * dw
      do k = 1, nloeng(row)
        call expect(all(v(4 * g + 1:4 * g + 4) == rlat(row) + [dw, up, up, dw]), "latitude bounds of a point")
        g = g + 1
      end do
    end do
    call read_var("xios_gmv.nc", read_text_attribute("xios_gmv.nc", "lon", "bounds"), v)
    g = 0
    do row = 1, nlat
      dx = 180.0_jprb / nloeng(row)
      do k = 0, nloeng(row) - 1
        lon = 360.0_jprb * k / nloeng(row)
        call expect(all(v(4 * g + 1:4 * g + 4) == lon + [dx, dx, -dx, -dx]), "longitude bounds of a point")
        g = g + 1
      end do
    end do
  end subroutine check_files

  ! Decomposed axes, the scalar coordinate and the fields of a scalar alone.
  subroutine check_extra_file()
    character(*), parameter :: f = "xios_extra.nc"
    real(jprb), allocatable :: v(:)
    integer :: r, b, g
    call read_var(f, "flux", v)
    call expect(same(v, [((flux_value(b, 2 * r), b = 0, nband - 1), r = 1, 4)]), "flux on bands decomposed by begin/n")
    call read_var(f, "band", v)
    call expect(same(v, [(real(b, jprb), b = 1, nband)]), "band values from the ranks' parts")
    call read_var(f, read_text_attribute(f, "band", "bounds"), v)
    call expect(same(v, [((b + 0.5_jprb * k, k = -1, 1, 2), b = 1, nband)]), "band bounds from the ranks' parts")
    call read_var(f, "hist", v)
    call expect(same(v, [((hist_value(b, 2 * r), b = 0, nbin - 1), r = 1, 4)]), "hist on bins decomposed by index")
    call read_var(f, "bin", v)
    call expect(same(v, [(200.0_jprb + 10.0_jprb * b, b = 0, nbin - 1)]), "bin values from the XML")
    call read_var(f, "t2m", v)
    call expect(same(v, [((t2m_value(g, 2 * r), g = 1, ngptotg), r = 1, 4)]), "t2m")
    call read_var(f, "height", v)
    call expect(same(v, [2.0_jprb]), "height set by xios_set_scalar_attr")
    call expect(read_text_attribute(f, "height", "units") == "m", "height unit set by xios_set_scalar_attr")
    call expect(index(read_text_attribute(f, "t2m", "coordinates"), "height") > 0, "t2m coordinates name height")
    call read_var(f, "gmean", v)
    call expect(same(v, [(gmean_value(2 * r), r = 1, 4)]), "gmean: a real(8) scalar, model rank 0's")
    call read_var(f, "gmean4", v)
    call expect(same(v, [(gmean_value(2 * r), r = 1, 4)]), "gmean4: a real(4) scalar, model rank 0's")
  end subroutine check_extra_file


  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) return
    write(*, '(a,i0,a)') "CHECK FAILED on rank ", myproc, ": " // what
    failures = failures + 1
  end subroutine expect

end program xios_model
